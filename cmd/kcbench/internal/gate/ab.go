package gate

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/montanaflynn/stats"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// An ABInput is one row of an A/B run: a tidied unit's values (a
// benchmark's sec/op, a latency line's p50-sec, ...) of the base build
// and of the head build, pair by pair (Base[i] and Head[i] were measured
// moments apart). Higher values are worse; the empty Unit is sec/op.
type ABInput struct {
	Name, Unit string
	Base, Head []float64
}

// An ABRun describes how an A/B run was made, for the report's header.
type ABRun struct {
	Base, Head string        // the two sides ("main (1a2b3c4)", "working tree")
	Sample     string        // one sample ("10ms", "1000x")
	Order      string        // "ABBA", "AB"
	Elapsed    time.Duration // wall time of the measuring
	// Discard is the number of first rounds dropped from every row
	// (-discard): a row's pairs are the rounds less these.
	Discard int
	// Load describes how busy the machine was with other work while it
	// measured (package cpuload), or why that is unknown; "" prints nothing.
	Load string
}

// An ABRow is one judged row of an A/B run.
type ABRow struct {
	Name, Unit            string
	BaseCenter, CurCenter float64 // medians of the two sides
	Judged                paired.Judged
	Target                results.Target
	HasTarget             bool
	Verdicts              []Verdict
}

// An ABReport is the outcome of JudgeAB.
type ABReport struct {
	Options Options
	Run     ABRun
	Rows    []*ABRow
}

// JudgeAB judges the paired values of every input with paired.Judge
// (Holm-corrected across the inputs, opts.MaxRegress, opts.Alpha) and
// checks the spec targets on the head's medians.
func JudgeAB(inputs []ABInput, run ABRun, opts Options) *ABReport {
	rep := &ABReport{Options: opts, Run: run}
	rows := make([]paired.Row, len(inputs))
	for i, in := range inputs {
		pairs := make([]paired.Pair, min(len(in.Base), len(in.Head)))
		for k := range pairs {
			pairs[k] = paired.Pair{A: in.Base[k], B: in.Head[k]}
		}
		rows[i] = paired.Row{Name: in.Name, Unit: in.unit(), Pairs: pairs}
	}
	judged := paired.Judge(rows, paired.Options{Alpha: opts.Alpha, MaxRegress: opts.MaxRegress, Confidence: 0.95})
	for i, j := range judged {
		in := inputs[i]
		r := &ABRow{Name: in.Name, Unit: in.unit(), Judged: j, BaseCenter: median(in.Base), CurCenter: median(in.Head)}
		r.Target, r.HasTarget = results.TargetFor(seriesOf(in.Name, r.Unit))
		switch j.Verdict {
		case paired.OK, paired.Improved, paired.Regressed:
			r.Verdicts = []Verdict{Verdict(j.Verdict)}
		case paired.Blind:
			r.Verdicts = []Verdict{Blind}
		default: // TooFew, or any row paired could not judge
			r.Verdicts = []Verdict{TooFewSamples}
		}
		if r.HasTarget && len(in.Head) > 0 && !r.Target.Met(r.CurCenter) && r.Verdicts[0] != TooFewSamples {
			if r.Verdicts[0] == OK {
				r.Verdicts = nil
			}
			r.Verdicts = append(r.Verdicts, TargetMissed)
		}
		rep.Rows = append(rep.Rows, r)
	}
	return rep
}

// ABBlindEarly tells from the first kept round of an A/B run whether the
// run is blind already: when every row will get n pairs, the rows whose
// first pair differs (both values positive and finite) are in the Holm
// family whatever their later pairs, so the family has at least m of
// them; if n pairs cannot reach alpha/m, none of the rows can be
// significant and every row of the family will be blind. It then returns
// an error wrapping ErrBlind that gives the pairs, and the -count with
// discard's rounds, that would decide; else nil. (A row whose later
// values are not positive is judged invalid and leaves the family, which
// fails the run too.)
func ABBlindEarly(first []paired.Pair, n int, alpha float64, discard int) error {
	m := 0
	for _, p := range first {
		if p.A != p.B && positive(p.A) && positive(p.B) {
			m++
		}
	}
	level := alpha / float64(max(1, m))
	if m == 0 || paired.MinP(n) <= level {
		return nil
	}
	k := paired.PairsFor(level)
	return fmt.Errorf("%w: after the first round %d rows already differ between the builds, and %d pairs a row reach at best p = %.2g, above Holm's level %v/%d = %.2g: no row could be found to regress; need >= %d pairs a row: -count %d",
		ErrBlind, m, n, paired.MinP(n), alpha, m, level, k, k+discard)
}

// positive reports whether x is positive and finite.
func positive(x float64) bool { return x > 0 && !math.IsInf(x, 1) }

// unit returns in's unit, sec/op when empty.
func (in ABInput) unit() string {
	if in.Unit == "" {
		return results.SecPerOp
	}
	return in.Unit
}

// seriesOf returns the identity of an A/B row of unit, parsed from its
// benchmark name as results files' names are (results.Identify).
func seriesOf(name, unit string) *results.Series {
	id := results.Identify(&benchfmt.Result{Name: benchfmt.Name(name)})
	return &results.Series{ID: id, Name: name, Unit: unit}
}

// median returns the median of xs (NaN when empty).
func median(xs []float64) float64 {
	m, _ := stats.Median(xs) // NaN, ErrEmptyInput when empty
	return m
}

// Err summarizes the report as Report.Err does; for blind rows it gives
// the pairs, and the -count, that would let the run decide them.
func (rep *ABReport) Err() error {
	family, level := rep.level()
	k := paired.PairsFor(level)
	return joinErrs(summarize(rep.Rows, map[Verdict]string{
		TooFewSamples: fmt.Sprintf("need >= %d pairs", paired.MinPairs),
		Blind: fmt.Sprintf("their pairs cannot reach Holm's level %v/%d = %.2g; need >= %d pairs a row: -count %d",
			rep.Options.Alpha, family, level, k, k+rep.Run.Discard),
	}, func(r *ABRow) (string, []Verdict) { return r.Name + " " + r.Unit, r.Verdicts }))
}

// level returns the size of the Holm family (the rows judged, less those
// whose pairs are all equal) and Holm's first-step level, Alpha over it.
func (rep *ABReport) level() (family int, level float64) {
	for _, r := range rep.Rows {
		if r.Judged.InFamily {
			family++
		}
	}
	return family, rep.Options.Alpha / float64(max(1, family))
}

// WriteText writes the A/B report: a header saying what was compared and
// how, one line per row (medians, the paired ratio head/base with its 95%
// interval, the minimum detectable effect at 90% power, the raw and
// Holm-adjusted p-values, the pairs, the target and the verdicts), one
// FAIL line per failing row and a final PASS or FAIL line.
func (rep *ABReport) WriteText(w io.Writer) error {
	var b strings.Builder
	o, run := rep.Options, rep.Run
	fmt.Fprintf(&b, "gate: %s (base) vs %s (head), paired %s rounds of %s samples\n", run.Base, run.Head, run.Order, run.Sample)
	if run.Load != "" {
		fmt.Fprintf(&b, "machine: %s\n", run.Load)
	}
	family, level := rep.level()
	of := "sec/op"
	for _, r := range rep.Rows {
		if r.Unit != results.SecPerOp {
			of = "each row's unit"
		}
	}
	fmt.Fprintf(&b, "%d rows, max regression %s, alpha %v (Holm over %d rows); ratio = head/base of %s, mde = smallest change detectable at 90%% power\n\n",
		len(rep.Rows), formatPct(o.MaxRegress), o.Alpha, family, of)
	cells := make([][]string, len(rep.Rows))
	for i, r := range rep.Rows {
		cells[i] = r.cells()
	}
	if err := writeTable(&b, "benchmark\tunit\tbase\thead\tratio\t95% interval\tmde\tp\tp(holm)\tpairs\ttarget\tverdict", cells); err != nil {
		return err
	}
	var fails []string
	for _, r := range rep.Rows {
		if why := r.reason(o, family, level); why != "" {
			fails = append(fails, fmt.Sprintf("%s %s: %s", r.Name, r.Unit, why))
		}
	}
	writeOutcome(&b, len(rep.Rows), fails)
	_, err := io.WriteString(w, b.String())
	return err
}

// cells returns the table cells of r.
func (r *ABRow) cells() []string {
	e := r.Judged.Est
	class := benchunit.ClassOf(r.Unit)
	scale := benchunit.CommonScale([]float64{r.BaseCenter, r.CurCenter}, class)
	cell := func(x float64) string {
		if math.IsNaN(x) {
			return "-"
		}
		return scale.Format(x)
	}
	ratio, interval, mde, p, padj := "-", "-", "-", "-", "-"
	if r.Verdicts[0] != TooFewSamples {
		ratio = fmt.Sprintf("%.3f", e.Ratio)
		interval = fmt.Sprintf("[%.3f, %.3f]", e.Lo, e.Hi)
		mde = "±" + formatPctDigits(e.MDE)
		p, padj = formatP(e.P), formatP(r.Judged.AdjP)
	}
	return []string{r.Name, r.Unit, cell(r.BaseCenter), cell(r.CurCenter), ratio, interval, mde, p, padj,
		fmt.Sprint(len(r.Judged.Row.Pairs)), targetCell(r.Target, r.HasTarget, class), verdictCell(r.Verdicts)}
}

// reason explains why r fails, or returns "", in a run whose Holm family
// has family rows and first-step level level.
func (r *ABRow) reason(o Options, family int, level float64) string {
	var why []string
	class := benchunit.ClassOf(r.Unit)
	e := r.Judged.Est
	for _, v := range r.Verdicts {
		switch v {
		case TooFewSamples:
			why = append(why, fmt.Sprintf("too-few-samples: %d pairs, need >= %d usable ones (positive and finite)", len(r.Judged.Row.Pairs), paired.MinPairs))
		case Regressed:
			why = append(why, fmt.Sprintf("regressed: head/base %.3f [%.3f, %.3f], worse by more than %s, p(holm)=%s",
				e.Ratio, e.Lo, e.Hi, formatPct(o.MaxRegress), formatP(r.Judged.AdjP)))
		case TargetMissed:
			why = append(why, targetMissed(r.CurCenter, r.Target, class))
		case Blind:
			why = append(why, fmt.Sprintf("blind: %d pairs reach at best p = %.2g, above Holm's level %v/%d = %.2g; need >= %d pairs",
				e.N, paired.MinP(e.N), o.Alpha, family, level, paired.PairsFor(level)))
		}
	}
	return strings.Join(why, "; ")
}

// formatPctDigits formats a fraction as a percentage with one decimal.
func formatPctDigits(x float64) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return fmt.Sprint(x)
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}
