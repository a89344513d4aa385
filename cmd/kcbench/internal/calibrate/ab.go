package calibrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/montanaflynn/stats"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
)

// An ABTrial is one trial of an A/B calibration: for every row, the pairs
// of an A/A comparison (two builds of the same commit) and of every
// slowdown (A against a build of the same commit slowed by that much).
type ABTrial struct {
	// AA[row] are the A/A pairs of the row.
	AA [][]paired.Pair
	// Slowed[slowdown][row] are the pairs of A against the slowed build.
	Slowed [][][]paired.Pair
}

// ErrTrialShape reports A/B trials that do not hold one list of pairs per
// row for the A/A comparison and for every slowdown, or slowdowns that
// are not positive.
var ErrTrialShape = errors.New("trials do not match the rows and slowdowns")

// CheckTrials reports, as an error wrapping ErrTrialShape, trials that
// JudgeAB and Noise cannot use with these rows and slowdowns: every
// trial must have len(rows) lists of pairs in AA, and len(slowdowns)
// entries in Slowed of len(rows) lists each; every slowdown must be
// positive and finite. Trials saved with -raw and read back (judged
// with -from-raw) must pass it before they are judged.
func CheckTrials(rows []string, slowdowns []float64, trials []ABTrial) error {
	for _, s := range slowdowns {
		if !(s > 0) || math.IsInf(s, 1) {
			return fmt.Errorf("%w: slowdown %v is not a positive fraction", ErrTrialShape, s)
		}
	}
	for t, tr := range trials {
		if len(tr.AA) != len(rows) {
			return fmt.Errorf("%w: trial %d has %d A/A lists of pairs for %d rows", ErrTrialShape, t+1, len(tr.AA), len(rows))
		}
		if len(tr.Slowed) != len(slowdowns) {
			return fmt.Errorf("%w: trial %d has %d slowed comparisons for %d slowdowns", ErrTrialShape, t+1, len(tr.Slowed), len(slowdowns))
		}
		for k, sl := range tr.Slowed {
			if len(sl) != len(rows) {
				return fmt.Errorf("%w: trial %d, slowdown %g%%: %d lists of pairs for %d rows", ErrTrialShape, t+1, 100*slowdowns[k], len(sl), len(rows))
			}
		}
	}
	return nil
}

// An ABRowSetup says how a row's slowdowns were made.
type ABRowSetup struct {
	Name string `json:"name"`
	// BaseNs is A's ns/op before the trials; CallsPerOp the injection
	// points an op passes (a counting build); StepNs the cost of one
	// injected step; Steps[i] the steps per call of slowdown i.
	BaseNs     float64 `json:"base_ns"`
	CallsPerOp float64 `json:"calls_per_op"`
	StepNs     float64 `json:"step_ns"`
	Steps      []int   `json:"steps"`
}

// ABRowDetection is the detection of one slowdown on one row.
type ABRowDetection struct {
	Name     string  `json:"name"`
	Detected int     `json:"detected"`
	Rate     float64 `json:"rate"`
	// Measured is the median over the trials of the paired ratio
	// slowed/A: the slowdown the build really had, next to the nominal.
	Measured float64 `json:"measured_ratio"`
	// MDE is the median minimum detectable effect of the trials.
	MDE float64 `json:"median_mde"`
}

// ABDetection is the detection of one slowdown over every row.
type ABDetection struct {
	Slowdown float64          `json:"slowdown"`
	Detected int              `json:"detected"`
	Rate     float64          `json:"rate"`
	Rows     []ABRowDetection `json:"rows"`
}

// An ABResult is the outcome of JudgeAB.
type ABResult struct {
	Trials int     `json:"trials"`
	Pairs  int     `json:"pairs"`
	Sample string  `json:"sample"`
	Alpha  float64 `json:"alpha"`
	// MaxRegress is the gate's -max-regress.
	MaxRegress float64      `json:"max_regress"`
	Rows       []ABRowSetup `json:"rows"`
	// FalseAlarms counts the trials where any row of the A/A
	// comparison was judged regressed (what fails a gate);
	// RowFalseAlarms counts them per row. Significant counts the
	// trials with any significant verdict, improved ones included.
	FalseAlarms    int           `json:"false_alarms"`
	Significant    int           `json:"aa_significant"`
	FalseAlarmRate float64       `json:"false_alarm_rate"`
	RowFalseAlarms []int         `json:"row_false_alarms"`
	AAMDE          []float64     `json:"aa_median_mde"`
	Detections     []ABDetection `json:"detections"`
	// Noise is the noise of every row (with two trials or more).
	Noise   []RowNoise `json:"noise,omitempty"`
	Elapsed string     `json:"elapsed"`
	// Load describes how busy the machine was with other work during the
	// trials (package cpuload), or why that is unknown; "" prints nothing.
	Load string `json:"load,omitempty"`
}

// JudgeAB judges every trial as a gate run would: the A/A comparison of
// all rows at once (Holm across the rows), and for every slowdown and
// row, that row slowed among the other rows' A/A pairs (so the Holm
// family is the same as a gate run in which one row regressed). The
// trials must pass CheckTrials with setup's rows and slowdowns.
func JudgeAB(setup []ABRowSetup, slowdowns []float64, trials []ABTrial, opts paired.Options) *ABResult {
	res := &ABResult{Trials: len(trials), Alpha: opts.Alpha, MaxRegress: opts.MaxRegress, Rows: setup,
		RowFalseAlarms: make([]int, len(setup)), AAMDE: make([]float64, len(setup))}
	rowsOf := func(pairs [][]paired.Pair) []paired.Row {
		rows := make([]paired.Row, len(pairs))
		for i, p := range pairs {
			rows[i] = paired.Row{Name: setup[i].Name, Unit: "sec/op", Pairs: p}
		}
		return rows
	}
	aaMDE := make([][]float64, len(setup))
	for _, tr := range trials {
		alarm, significant := false, false
		for i, j := range paired.Judge(rowsOf(tr.AA), opts) {
			aaMDE[i] = append(aaMDE[i], j.Est.MDE)
			switch j.Verdict {
			case paired.Regressed:
				res.RowFalseAlarms[i]++
				alarm, significant = true, true
			case paired.Improved:
				significant = true
			}
		}
		if alarm {
			res.FalseAlarms++
		}
		if significant {
			res.Significant++
		}
		if len(tr.AA) > 0 {
			res.Pairs = len(tr.AA[0])
		}
	}
	for i := range aaMDE {
		res.AAMDE[i] = medianOf(aaMDE[i])
	}
	for si, s := range slowdowns {
		d := ABDetection{Slowdown: s}
		for ri, row := range setup {
			rd := ABRowDetection{Name: row.Name}
			var ratios, mdes []float64
			for _, tr := range trials {
				family := slices.Clone(tr.AA)
				family[ri] = tr.Slowed[si][ri]
				j := paired.Judge(rowsOf(family), opts)[ri]
				if j.Verdict == paired.Regressed {
					rd.Detected++
				}
				if j.Est.N > 0 {
					ratios = append(ratios, j.Est.Ratio)
					mdes = append(mdes, j.Est.MDE)
				}
			}
			rd.Rate = rate(rd.Detected, len(trials))
			rd.Measured, rd.MDE = medianOf(ratios), medianOf(mdes)
			d.Detected += rd.Detected
			d.Rows = append(d.Rows, rd)
		}
		d.Rate = rate(d.Detected, len(trials)*len(setup))
		res.Detections = append(res.Detections, d)
	}
	res.FalseAlarmRate = rate(res.FalseAlarms, len(trials))
	return res
}

func rate(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// medianOf is the median of the finite values of xs (0 if none: the
// result goes to JSON, which has no infinities).
func medianOf(xs []float64) float64 {
	var s []float64
	for _, x := range xs {
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	if len(s) == 0 {
		return 0
	}
	m, _ := stats.Median(s)
	return m
}

// Acceptable reports whether the gate can be trusted with these settings:
// at most maxFalse A/A false alarms and, if slowdowns were tried, every
// row of some slowdown detected in at least minDetect of the trials.
func (r *ABResult) Acceptable(maxFalse, minDetect float64) bool {
	if r.FalseAlarmRate > maxFalse {
		return false
	}
	if len(r.Detections) == 0 {
		return true // A/A trials only
	}
	for _, d := range r.Detections {
		if !slices.ContainsFunc(d.Rows, func(rd ABRowDetection) bool { return rd.Rate < minDetect }) {
			return true
		}
	}
	return false
}

// WriteText writes the result: the setup of every row, the A/A
// false-alarm line, and per slowdown a detection line and one line per
// row with the measured ratio next to the nominal one.
func (r *ABResult) WriteText(w io.Writer) error {
	var b []byte
	p := func(format string, args ...any) { b = fmt.Appendf(b, format, args...) }
	p("calibration -ab: %d trials, %d pairs a row and comparison (%s samples), max regression %g%%, alpha %v (Holm over %d rows)\n",
		r.Trials, r.Pairs, r.Sample, 100*r.MaxRegress, r.Alpha, len(r.Rows))
	for _, s := range r.Rows {
		if s.BaseNs == 0 {
			continue // judged from saved pairs: no setup
		}
		p("row %s: base %.1f ns/op, %.2f injection calls/op, %.2f ns a step, steps per call %v\n", s.Name, s.BaseNs, s.CallsPerOp, s.StepNs, s.Steps)
	}
	p("A/A false alarms: %d (%.1f%%)\n", r.FalseAlarms, 100*r.FalseAlarmRate)
	p("  A/A trials with any significant verdict, improved included: %d\n", r.Significant)
	for i, s := range r.Rows {
		p("  %s: %d, median mde ±%.1f%%\n", s.Name, r.RowFalseAlarms[i], 100*r.AAMDE[i])
	}
	for _, d := range r.Detections {
		p("slowdown +%g%%: detected %d (%.1f%%)\n", 100*d.Slowdown, d.Detected, 100*d.Rate)
		for _, rd := range d.Rows {
			p("  %s: detected %d of %d (%.1f%%), measured ratio %.3f (nominal %.3f), median mde ±%.1f%%\n",
				rd.Name, rd.Detected, r.Trials, 100*rd.Rate, rd.Measured, 1+d.Slowdown, 100*rd.MDE)
		}
	}
	for _, n := range r.Noise {
		p("%s\n", n)
	}
	if r.Elapsed != "" {
		p("elapsed %s\n", r.Elapsed)
	}
	if r.Load != "" {
		p("machine: %s\n", r.Load)
	}
	_, err := w.Write(b)
	return err
}

// WriteJSON writes the result as indented JSON.
func (r *ABResult) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
