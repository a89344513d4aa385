package report

import (
	"fmt"
	"math"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// rowAlpha is the level of the report's tests and minimum detectable
// effects: one row at a time, with no correction for the many rows (the
// report describes; the gate decides, and corrects).
const rowAlpha = 0.05

// legend explains the statistics of the workload tables.
const legend = `Each table has a column per backend. The unit rows give the median
of the runs ± the 95% confidence interval of the median. "sec/op MDE" is
the minimum detectable effect of that median: the smallest change of
sec/op that a second run like this one, compared with it (Mann-Whitney U
test at α = 0.05), would detect with 90% power if the machine ran at the
same speed both times; a machine whose speed drifts between runs makes
the real figure larger. "sec/op vs peer" is the ratio of the backend's
sec/op to the peer's, estimated from the pairs of runs of one round
(kcbench run measures every benchmark once per round, so a backend's
i-th run and the peer's i-th run are neighbours in time and share the
machine's drift), with its 95% interval and its MDE (Wilcoxon
signed-rank test on the log ratios, α = 0.05, 90% power). See
docs/gate.md for the statistics.

`

// pairsByRound pairs the i-th value of a (the reference) with the i-th
// value of b: the runs of round i in a results file written by kcbench
// run, which measures every benchmark once per round and writes each
// benchmark's runs in round order (a benchmark that fails is dropped
// from later rounds, so its first k values are still rounds 1 to k).
func pairsByRound(a, b *results.Series) []paired.Pair {
	n := min(len(a.Values), len(b.Values))
	out := make([]paired.Pair, n)
	for i := range n {
		out[i] = paired.Pair{A: a.Values[i], B: b.Values[i]}
	}
	return out
}

// ratioCell formats the paired ratio of cur to ref: the estimate, its
// 95% interval and its MDE; with too few rounds (or unusable values) the
// ratio of the medians alone, marked with the number of pairs.
func ratioCell(ref, cur *results.Series, refCenter, curCenter float64) string {
	pairs := pairsByRound(ref, cur)
	e, err := paired.Analyze(pairs, confidence, rowAlpha)
	if err != nil {
		return fmt.Sprintf("%.2f× (n=%d)", curCenter/refCenter, len(pairs))
	}
	return fmt.Sprintf("%.2f× (%.2f–%s, MDE %s)", e.Ratio, e.Lo, upper(e.Hi), percent(e.MDE))
}

// mdeCell formats the unpaired MDE of a sample against a second sample
// like it.
func mdeCell(s *results.Series) string {
	return percent(paired.UnpairedMDE(s.Values, s.Values, rowAlpha))
}

// upper formats the upper bound of a ratio's interval.
func upper(hi float64) string {
	if math.IsInf(hi, 1) {
		return "∞"
	}
	return fmt.Sprintf("%.2f", hi)
}

// percent formats a fraction as a percentage with two significant
// digits, or "∞" for a change no run of this size can detect.
func percent(f float64) string {
	switch {
	case math.IsInf(f, 1) || math.IsNaN(f):
		return "∞"
	case f < 0.1:
		return fmt.Sprintf("%.1f%%", 100*f)
	}
	return fmt.Sprintf("%.0f%%", 100*f)
}
