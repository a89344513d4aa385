package gate

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchunit"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// WriteText writes the report: a table with one line per judged row and
// its verdicts, the baseline rows missing from the current file and the
// rows new in it, one "FAIL" line per failing row giving the reason and
// per missing row, and a final PASS or FAIL line.
func (rep *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	o := rep.Options
	fmt.Fprintf(&b, "gate: %d rows, %d comparisons, max regression %s, alpha %v (Holm-Bonferroni), >= %d samples per side\n",
		len(rep.Rows), rep.Comparisons, formatPct(o.MaxRegress), o.Alpha, o.MinSamples)
	fmt.Fprintf(&b, "unpaired comparison with a stored baseline: mde = smallest change detectable at 90%% power, valid only if both files come from the same quiet machine\n\n")
	cells := make([][]string, len(rep.Rows))
	for i, r := range rep.Rows {
		cells[i] = r.cells()
	}
	if err := writeTable(&b, "benchmark\tunit\tbaseline\tcurrent\tchange\tmde\tp\tp(holm)\tn\ttarget\tverdict", cells); err != nil {
		return err
	}
	if len(rep.OnlyBaseline) > 0 {
		fmt.Fprintf(&b, "\nmissing from the current results (not judged): %s\n(%s)\n", strings.Join(rep.OnlyBaseline, ", "), missingHint)
	}
	if len(rep.OnlyCurrent) > 0 {
		fmt.Fprintf(&b, "\nnot in the baseline (not judged): %s\n", strings.Join(rep.OnlyCurrent, ", "))
	}
	var fails []string
	for _, r := range rep.Rows {
		if r.Failing() {
			fails = append(fails, fmt.Sprintf("%s %s: %s", r.Name, r.Unit, rep.reason(r)))
		}
	}
	for _, key := range rep.OnlyBaseline {
		fails = append(fails, key+": missing: in the baseline, not in the current results")
	}
	writeOutcome(&b, len(rep.Rows)+len(rep.OnlyBaseline), fails)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable writes a table to b: the header line and one line of cells
// a row, tab-separated cells aligned in columns.
func writeTable(b *strings.Builder, header string, rows [][]string) error {
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, cells := range rows {
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// writeOutcome writes the end of a report to b: one "FAIL <fail>" line a
// failing row ("name unit: why"), after a blank line, and the final
// "PASS: n rows" or "FAIL: k of n rows" line.
func writeOutcome(b *strings.Builder, n int, fails []string) {
	if len(fails) > 0 {
		b.WriteString("\n")
	}
	for _, f := range fails {
		fmt.Fprintf(b, "FAIL %s\n", f)
	}
	if len(fails) == 0 {
		fmt.Fprintf(b, "\nPASS: %d rows\n", n)
	} else {
		fmt.Fprintf(b, "\nFAIL: %d of %d rows\n", len(fails), n)
	}
}

// targetCell is the target column of a row: "<= max", or "" without a
// target.
func targetCell(t results.Target, has bool, class benchunit.Class) string {
	if !has {
		return ""
	}
	return "<= " + benchunit.Scale(t.Max, class)
}

// verdictCell is the verdict column of a row: its verdicts, comma-separated.
func verdictCell(vs []Verdict) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, ",")
}

// targetMissed explains a missed target: the current median is over it.
func targetMissed(cur float64, t results.Target, class benchunit.Class) string {
	return fmt.Sprintf("target-missed: median %s > target %s", benchunit.Scale(cur, class), benchunit.Scale(t.Max, class))
}

// cells returns the table cells of r.
func (r *Row) cells() []string {
	c := r.Comparison
	scale := benchunit.CommonScale([]float64{c.BaseCenter, r.CurCenter}, benchunit.ClassOf(r.Unit))
	base, change, mde, p, padj, n := "-", "-", "-", "-", "-", fmt.Sprint(r.CurN)
	if r.Compared {
		n = fmt.Sprintf("%d+%d", r.BaseN, r.CurN)
	}
	if r.Compared && !r.has(TooFewSamples) {
		base = scale.Format(c.BaseCenter)
		change = formatChange(c.Change)
		mde = "±" + formatPctDigits(r.MDE)
		p, padj = formatP(c.P), formatP(r.PAdj)
	}
	cur := "-"
	if r.CurN > 0 {
		cur = scale.Format(r.CurCenter)
	}
	return []string{r.Name, r.Unit, base, cur, change, mde, p, padj, n,
		targetCell(r.Target, r.HasTarget, benchunit.ClassOf(r.Unit)), verdictCell(r.Verdicts)}
}

// reason explains why r fails.
func (rep *Report) reason(r *Row) string {
	var why []string
	class := benchunit.ClassOf(r.Unit)
	for _, v := range r.Verdicts {
		switch v {
		case TooFewSamples:
			if r.Compared {
				why = append(why, fmt.Sprintf("too-few-samples: %d baseline and %d current values, need >= %d each",
					r.BaseN, r.CurN, rep.Options.MinSamples))
			} else {
				why = append(why, fmt.Sprintf("too-few-samples: %d current values, need >= %d",
					r.CurN, rep.Options.MinSamples))
			}
		case Regressed:
			why = append(why, fmt.Sprintf("regressed: median %s -> %s (%s), worse by more than %s, p(holm)=%s",
				benchunit.Scale(r.Comparison.BaseCenter, class), benchunit.Scale(r.CurCenter, class),
				formatChange(r.Comparison.Change), formatPct(rep.Options.MaxRegress), formatP(r.PAdj)))
		case TargetMissed:
			why = append(why, targetMissed(r.CurCenter, r.Target, class))
		case Blind:
			why = append(why, fmt.Sprintf("blind: %d+%d values reach at best p = %.2g, above Holm's level %v/%d = %.2g; need >= %d a side",
				r.BaseN, r.CurN, MinPU(r.BaseN, r.CurN), rep.Options.Alpha, rep.Comparisons, rep.RowAlpha, SamplesFor(rep.RowAlpha)))
		}
	}
	return strings.Join(why, "; ")
}

// formatChange formats a relative change as a signed percentage.
func formatChange(x float64) string {
	if math.IsInf(x, 0) {
		return fmt.Sprintf("%+v", x)
	}
	return fmt.Sprintf("%+.2f%%", 100*x)
}

// formatPct formats a fraction as a percentage without needless digits.
func formatPct(x float64) string { return fmt.Sprintf("%g%%", 100*x) }

// formatP formats a p-value with four decimals, or as an upper bound.
func formatP(p float64) string {
	if p < 0.0001 {
		return "<0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}
