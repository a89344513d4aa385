// Package gate is the regression gate of "kcbench gate": it compares
// every benchmark of a results file with the same benchmark (same full
// name, same unit) in a baseline file and checks the spec targets.
//
// A row regresses when its change is both statistically significant and
// larger than a threshold. Significance is the two-sided Mann-Whitney U
// test of benchmath (the test benchstat uses), with the p-values
// Holm-Bonferroni corrected over every comparison the gate makes, so
// that the chance of at least one false alarm in a run stays at alpha
// however many benchmarks there are. Rows whose two sides hold one value
// between them (B/op and allocs/op of unchanged code, typically) can
// never be significant and are left out of the correction's family
// (Tarone's rule, paired.HolmTarone), which spares the rows that vary a
// stricter level. The size of a change is measured on the medians, in
// the unit's "worse" direction: up for sec/op, B/op, allocs/op and
// latency percentiles, down for rates (units per second) or units whose
// metadata says better=higher.
//
// Independently, every targeted series (JobCreate and AwaitCached sec/op
// on a backend that is not a peer; see results.Targets) must have a
// median at or under its target in the current file.
//
// Rows with fewer than MinSamples values on a side they need cannot be
// judged and are reported as too-few-samples; rows of the Holm family
// whose samples cannot reach its first-step level alpha/m (MinPU) could
// not have been found to regress and are reported as blind. The caller
// treats both as "could not decide" (exit 2), unless another row failed.
package gate

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// Errors reported by Judge and Report.Err.
var (
	// ErrNoCommon reports that the files share no benchmark.
	ErrNoCommon = errors.New("no benchmarks in common with the baseline")
	// ErrTooFewSamples reports rows that cannot be judged.
	ErrTooFewSamples = errors.New("too few samples")
	// ErrFailed reports a regression or a missed spec target.
	ErrFailed = errors.New("gate failed")
	// ErrBlind reports rows whose samples are too few for the level
	// Holm judges them at: the gate could not have seen them regress.
	ErrBlind = errors.New("cannot detect a regression")
	// ErrMissing reports baseline rows that the current results lack:
	// not judged, so the gate cannot pass them.
	ErrMissing = errors.New("baseline rows missing from the current results")
)

// MinSamples is the fewest values a side may have: with 6 against 6 the
// smallest possible two-sided U-test p-value is 0.0022, enough for a
// family of up to 23 rows at alpha 0.05; a larger family needs more
// (SamplesFor), or its rows are Blind.
const MinSamples = 6

// Options configures Judge.
type Options struct {
	// MaxRegress is the largest tolerated worsening of a median, as a
	// fraction (0.05 for 5%).
	MaxRegress float64
	// Alpha is the family-wise significance level.
	Alpha float64
	// MinSamples is the fewest values per side (default MinSamples).
	MinSamples int
}

// DefaultOptions are the gate's defaults: 5%, alpha 0.05, 6 samples.
var DefaultOptions = Options{MaxRegress: 0.05, Alpha: 0.05, MinSamples: MinSamples}

// A Row is one judged benchmark and unit.
type Row struct {
	// Name is the full benchmark name; Unit its tidied unit.
	Name, Unit string
	// Compared says whether the row is in the baseline too; only then
	// are Comparison, PAdj and the change verdicts meaningful.
	Compared   bool
	Comparison Comparison
	// PAdj is the Holm-adjusted p-value (1 for a row constant on both
	// sides, which is not in the Holm family).
	PAdj float64
	// MDE is the smallest change this unpaired comparison would have
	// detected at 90% power, as a fraction (paired.UnpairedMDE at the
	// strictest Holm level, alpha over Comparisons); 0 when not compared.
	MDE float64
	// base and cur are the compared samples, kept for MDE.
	base, cur []float64
	// Target is the spec target checked on the row, if HasTarget.
	Target    results.Target
	HasTarget bool
	// BaseN is the size of the baseline sample (0 when not compared).
	BaseN int
	// CurN and CurCenter describe the current sample (also for rows
	// that are not compared).
	CurN      int
	CurCenter float64
	// Verdicts are the row's verdicts, at least one, ordered.
	Verdicts []Verdict
}

// Failing reports whether any verdict of r fails the gate.
func (r *Row) Failing() bool {
	for _, v := range r.Verdicts {
		if v.Failing() {
			return true
		}
	}
	return false
}

// has reports whether r carries verdict v.
func (r *Row) has(v Verdict) bool { return slices.Contains(r.Verdicts, v) }

// A Report is the outcome of Judge.
type Report struct {
	Options Options
	// Rows are the judged rows, in the current file's order.
	Rows []*Row
	// Comparisons is the size of the Holm-Bonferroni family: the
	// compared rows less those constant on both sides.
	Comparisons int
	// RowAlpha is Holm's first-step level, Alpha over Comparisons: a
	// row whose samples cannot reach it is Blind.
	RowAlpha float64
	// OnlyBaseline and OnlyCurrent name the rows ("name unit") found
	// in one file only and not judged. A row only in the baseline is
	// missing from the current results and fails the gate (ErrMissing);
	// one only in the current results is new, and only reported.
	OnlyBaseline, OnlyCurrent []string
}

// Err summarizes the report: nil when every row passes; else an error
// wrapping ErrFailed naming the failing rows (a regression or a missed
// target) when there are any, and wrapping ErrTooFewSamples or ErrBlind
// naming the rows that could not be judged, or could not have shown a
// regression, and ErrMissing naming the baseline rows the current
// results lack, when there are any. A run with both wraps both: a
// regression found is a decision, whatever else could not be decided, so
// callers test ErrFailed first.
func (rep *Report) Err() error {
	k := SamplesFor(rep.RowAlpha)
	errs := summarize(rep.Rows, map[Verdict]string{
		TooFewSamples: fmt.Sprintf("need >= %d per side", rep.Options.MinSamples),
		Blind: fmt.Sprintf("their values cannot reach Holm's level %v/%d = %.2g; need >= %d a side (kcbench run -count %d for both files)",
			rep.Options.Alpha, rep.Comparisons, rep.RowAlpha, k, k),
	}, func(r *Row) (string, []Verdict) { return r.Name + " " + r.Unit, r.Verdicts })
	if len(rep.OnlyBaseline) > 0 {
		errs = append(errs, fmt.Errorf("%w (%s): %s", ErrMissing, missingHint, strings.Join(rep.OnlyBaseline, ", ")))
	}
	return joinErrs(errs)
}

// missingHint says why baseline rows may be missing from the current
// results and how to gate a subset on purpose.
const missingHint = "a benchmark that failed, was not run or changed its unit; to gate a subset on purpose, select it with -filter"

// undecided are the verdicts of rows the gate could not decide, in the
// order a report's Err names them.
var undecided = []Verdict{TooFewSamples, Blind}

// undecidedErr returns the error a report's Err wraps for the rows of
// verdict v when the gate could not decide them, else nil.
func (v Verdict) undecidedErr() error {
	switch v {
	case TooFewSamples:
		return ErrTooFewSamples
	case Blind:
		return ErrBlind
	}
	return nil
}

// summarize is the shared part of the reports' Err: an error for the
// failing rows (ErrFailed), then one for the rows of each undecided
// verdict (its error, with needs[verdict] saying what they lack).
func summarize[R any](rows []R, needs map[Verdict]string, id func(R) (string, []Verdict)) []error {
	var failing []string
	und := make(map[Verdict][]string)
	for _, r := range rows {
		name, vs := id(r)
		for _, v := range vs {
			if v.undecidedErr() != nil {
				und[v] = append(und[v], name)
			}
		}
		if slices.ContainsFunc(vs, func(v Verdict) bool { return v.Failing() && v.undecidedErr() == nil }) {
			failing = append(failing, name)
		}
	}
	var errs []error
	if len(failing) > 0 {
		errs = append(errs, fmt.Errorf("%w: %d row(s): %s", ErrFailed, len(failing), strings.Join(failing, ", ")))
	}
	for _, v := range undecided {
		if names := und[v]; len(names) > 0 {
			errs = append(errs, fmt.Errorf("%w (%s): %s", v.undecidedErr(), needs[v], strings.Join(names, ", ")))
		}
	}
	return errs
}

// joinErrs returns the errors as one, "; and "-separated, wrapping each;
// nil when there are none.
func joinErrs(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	err := errs[0]
	for _, e := range errs[1:] {
		err = fmt.Errorf("%w; and %w", err, e)
	}
	return err
}

// Judge compares cur against base. It fails with ErrNoCommon when the
// two share no benchmark; every other finding is in the Report.
func Judge(base, cur *results.Set, opts Options) (*Report, error) {
	if opts.MinSamples <= 0 {
		opts.MinSamples = MinSamples
	}
	rep := &Report{Options: opts}
	baseSeries := make(map[string]*results.Series)
	for _, s := range base.Series() {
		baseSeries[s.Name+" "+s.Unit] = s
	}
	seen := make(map[string]bool)
	var compared []*Row
	for _, s := range cur.Series() {
		key := s.Name + " " + s.Unit
		seen[key] = true
		b := baseSeries[key]
		row := &Row{Name: s.Name, Unit: s.Unit, CurN: len(s.Values), Compared: b != nil}
		if b != nil {
			row.BaseN = len(b.Values)
		}
		row.Target, row.HasTarget = results.TargetFor(s)
		if !row.Compared && !row.HasTarget {
			rep.OnlyCurrent = append(rep.OnlyCurrent, key)
			continue
		}
		row.CurCenter = cur.Summary(s, 0.95).Center
		rep.Rows = append(rep.Rows, row)
		if len(s.Values) < opts.MinSamples || (b != nil && len(b.Values) < opts.MinSamples) {
			row.Verdicts = []Verdict{TooFewSamples}
			continue
		}
		if b != nil {
			row.Comparison = Compare(b.Values, s.Values, cur.Better(s.Unit))
			row.base, row.cur = b.Values, s.Values
			row.CurCenter = row.Comparison.CurCenter
			compared = append(compared, row)
		}
	}
	for _, s := range base.Series() {
		if key := s.Name + " " + s.Unit; !seen[key] {
			rep.OnlyBaseline = append(rep.OnlyBaseline, key)
		}
	}
	if len(rep.OnlyBaseline) == len(baseSeries) {
		return nil, ErrNoCommon
	}
	judge(rep, compared)
	return rep, nil
}

// judge applies the Holm correction over the compared rows, leaving out
// those constant on both sides, and sets every row's verdicts.
func judge(rep *Report, compared []*Row) {
	ps := make([]float64, len(compared))
	for i, r := range compared {
		ps[i] = r.Comparison.P
	}
	adj, family := paired.HolmTarone(ps, func(i int) bool { return constant(compared[i].base, compared[i].cur) })
	rep.Comparisons = family
	rowAlpha := rep.Options.Alpha / float64(max(1, family))
	rep.RowAlpha = rowAlpha
	for i, r := range compared {
		r.PAdj = adj[i]
		r.MDE = paired.UnpairedMDE(r.base, r.cur, rowAlpha)
		v := Decide(r.Comparison, r.PAdj, rep.Options.Alpha, rep.Options.MaxRegress)
		// A row of the family (Tarone's: not constant) whose samples
		// cannot reach Holm's first step could not have regressed.
		if v == OK && !constant(r.base, r.cur) && MinPU(r.BaseN, r.CurN) > rowAlpha {
			v = Blind
		}
		r.Verdicts = []Verdict{v}
	}
	for _, r := range rep.Rows {
		if r.has(TooFewSamples) {
			continue
		}
		if r.HasTarget && !r.Target.Met(r.CurCenter) {
			if slices.Equal(r.Verdicts, []Verdict{OK}) {
				r.Verdicts = nil // a missed target is not "ok"
			}
			r.Verdicts = append(r.Verdicts, TargetMissed)
		}
		if len(r.Verdicts) == 0 {
			r.Verdicts = []Verdict{OK} // target met, not in the baseline
		}
	}
}

// constant reports whether base and cur hold one value between them: the
// U test then has p 1 under every relabelling of the values, so the row
// can never be significant.
func constant(base, cur []float64) bool {
	all := slices.Concat(base, cur)
	for _, x := range all {
		if x != all[0] {
			return false
		}
	}
	return true
}
