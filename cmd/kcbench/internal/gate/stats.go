package gate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
)

// ErrBadPercent reports a threshold that is not a percentage like "5%".
var ErrBadPercent = errors.New("want a non-negative percentage such as 5% or 2.5%")

// ParsePercent parses a threshold written as a percentage ("5%",
// "2.5%") and returns it as a fraction (0.05, 0.025). The % sign is
// required, so that "5" (5%? 500%?) is rejected rather than guessed.
func ParsePercent(s string) (float64, error) {
	num, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
	if !ok {
		return 0, fmt.Errorf("%q: %w", s, ErrBadPercent)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%q: %w", s, ErrBadPercent)
	}
	return v / 100, nil
}

// A Comparison is the statistics of one benchmark in the baseline and in
// the current results.
type Comparison struct {
	// BaseCenter and CurCenter are the medians.
	BaseCenter, CurCenter float64
	// BaseN and CurN are the sample sizes.
	BaseN, CurN int
	// P is the raw two-sided Mann-Whitney U test p-value (benchmath's
	// AssumeNothing.Compare); 1 when the test cannot be done (e.g. all
	// values equal).
	P float64
	// Change is CurCenter/BaseCenter - 1 (+Inf from a zero baseline).
	Change float64
	// Worse is Change signed so that positive means worse: Change for
	// lower-is-better units, -Change for higher-is-better units.
	Worse float64
}

// Compare computes the gate statistics of one benchmark: medians and the
// Mann-Whitney U test of base against cur, with better telling whether
// higher (+1) or lower (-1) values are better.
func Compare(base, cur []float64, better int) Comparison {
	th := benchmath.DefaultThresholds
	sb := benchmath.NewSample(slices.Clone(base), &th)
	sc := benchmath.NewSample(slices.Clone(cur), &th)
	c := Comparison{
		BaseCenter: benchmath.AssumeNothing.Summary(sb, 0.95).Center,
		CurCenter:  benchmath.AssumeNothing.Summary(sc, 0.95).Center,
		BaseN:      len(base),
		CurN:       len(cur),
		P:          benchmath.AssumeNothing.Compare(sb, sc).P,
	}
	switch {
	case c.BaseCenter == c.CurCenter:
		c.Change = 0
	case c.BaseCenter == 0:
		c.Change = math.Inf(int(math.Copysign(1, c.CurCenter)))
	default:
		c.Change = c.CurCenter/c.BaseCenter - 1
	}
	c.Worse = c.Change
	if better > 0 {
		c.Worse = -c.Change
	}
	return c
}

// MinPU returns the smallest p-value Compare's test can give for samples
// of n1 and n2 values: that of two samples entirely apart, 2/C(n1+n2, n1)
// for the exact U test (0.0022 for 6 against 6). A row of such samples
// judged at level rowAlpha can only be significant when MinPU(n1, n2) <=
// rowAlpha. It is 1 when a sample is empty.
func MinPU(n1, n2 int) float64 {
	if n1 < 1 || n2 < 1 {
		return 1
	}
	a, b := make([]float64, n1), make([]float64, n2)
	for i := range a {
		a[i] = float64(i + 1)
	}
	for i := range b {
		b[i] = float64(n1 + i + 1)
	}
	return Compare(a, b, -1).P
}

// SamplesFor returns the fewest values a side, n, at which MinPU(n, n)
// is at most level, and at least MinSamples; 0 for a level that is not
// positive.
func SamplesFor(level float64) int {
	if !(level > 0) {
		return 0
	}
	n := MinSamples
	for MinPU(n, n) > level {
		n++
	}
	return n
}

// Decide returns the verdict on a comparison whose adjusted p-value is
// pAdj: Regressed when the change is significant (pAdj <= alpha) and
// worse than maxRegress, Improved when it is significant and better by
// more than maxRegress, OK otherwise.
func Decide(c Comparison, pAdj, alpha, maxRegress float64) Verdict {
	if pAdj > alpha {
		return OK
	}
	switch {
	case c.Worse > maxRegress:
		return Regressed
	case -c.Worse > maxRegress:
		return Improved
	}
	return OK
}

// A Verdict is the gate's judgement on one row: one of package paired's
// verdicts OK, Improved and Regressed (same value, same name), or one of
// the gate's own, TargetMissed, TooFewSamples and Blind.
type Verdict int

// Verdicts, from best to worst.
const (
	OK            = Verdict(paired.OK)
	Improved      = Verdict(paired.Improved)
	Regressed     = Verdict(paired.Regressed)
	TargetMissed  = Regressed + 1
	TooFewSamples = Regressed + 2
	// Blind: not significant, and the row's samples could not have been:
	// its test cannot reach Holm's first-step level alpha/m over the m
	// rows of the family even when the two sides are entirely apart, so
	// a regression of this row alone would have passed unseen. It fails
	// the gate as a row that could not be judged (paired.Blind in A/B
	// mode, MinPU in the stored-baseline mode).
	Blind = Regressed + 3
)

// String returns the verdict as printed in the gate's table.
func (v Verdict) String() string {
	switch v {
	case TargetMissed:
		return "target-missed"
	case TooFewSamples:
		return "too-few-samples"
	case Blind:
		return "blind"
	}
	return paired.Verdict(v).String()
}

// Failing reports whether the verdict fails the gate.
func (v Verdict) Failing() bool { return v >= Regressed }
