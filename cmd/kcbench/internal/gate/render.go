package gate

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchunit"
)

// WriteText writes the report: a table with one line per judged row and
// its verdicts, the rows found in one file only, one "FAIL" line per
// failing row giving the reason, and a final PASS or FAIL line.
func (rep *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	o := rep.Options
	fmt.Fprintf(&b, "gate: %d rows, %d comparisons, max regression %s, alpha %v (Holm-Bonferroni), >= %d samples per side\n",
		len(rep.Rows), rep.Comparisons, formatPct(o.MaxRegress), o.Alpha, o.MinSamples)
	fmt.Fprintf(&b, "unpaired comparison with a stored baseline: mde = smallest change detectable at 90%% power, valid only if both files come from the same quiet machine\n\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tunit\tbaseline\tcurrent\tchange\tmde\tp\tp(holm)\tn\ttarget\tverdict")
	for _, r := range rep.Rows {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rep.OnlyBaseline) > 0 {
		fmt.Fprintf(&b, "\nonly in the baseline (not judged): %s\n", strings.Join(rep.OnlyBaseline, ", "))
	}
	if len(rep.OnlyCurrent) > 0 {
		fmt.Fprintf(&b, "\nnot in the baseline (not judged): %s\n", strings.Join(rep.OnlyCurrent, ", "))
	}
	failing := 0
	for _, r := range rep.Rows {
		if r.Failing() {
			if failing == 0 {
				b.WriteString("\n")
			}
			failing++
			fmt.Fprintf(&b, "FAIL %s %s: %s\n", r.Name, r.Unit, rep.reason(r))
		}
	}
	if failing == 0 {
		fmt.Fprintf(&b, "\nPASS: %d rows\n", len(rep.Rows))
	} else {
		fmt.Fprintf(&b, "\nFAIL: %d of %d rows\n", failing, len(rep.Rows))
	}
	_, err := io.WriteString(w, b.String())
	return err
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
	target := ""
	if r.HasTarget {
		target = "<= " + benchunit.Scale(r.Target.Max, benchunit.ClassOf(r.Unit))
	}
	verdicts := make([]string, len(r.Verdicts))
	for i, v := range r.Verdicts {
		verdicts[i] = v.String()
	}
	return []string{r.Name, r.Unit, base, cur, change, mde, p, padj, n, target, strings.Join(verdicts, ",")}
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
			why = append(why, fmt.Sprintf("target-missed: median %s > target %s",
				benchunit.Scale(r.CurCenter, class), benchunit.Scale(r.Target.Max, class)))
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
