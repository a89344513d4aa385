package paired

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"
)

// MinPairs is the fewest pairs Analyze accepts: with 6 pairs all pointing
// the same way the signed-rank test reaches p = 2/64 = 0.031, and the 95%
// interval is bounded (by the extreme log ratios).
const MinPairs = 6

// Power is the probability with which an effect of Estimate.MDE is
// detected.
const Power = 0.90

// Errors reported by Analyze; match them with errors.Is.
var (
	// ErrTooFew reports fewer than MinPairs pairs.
	ErrTooFew = errors.New("too few pairs")
	// ErrNonPositive reports a value that is zero, negative, infinite or
	// NaN: a ratio of it has no logarithm.
	ErrNonPositive = errors.New("value not positive and finite")
	// ErrLevel reports a confidence or alpha outside (0, 1).
	ErrLevel = errors.New("level not in (0, 1)")
)

// A Pair is one sample of build A and the neighbouring sample of build B,
// in the same unit (for example sec/op).
type Pair struct{ A, B float64 }

// An Estimate is the paired comparison of B with A. The zero Estimate has
// N 0 and means nothing.
type Estimate struct {
	// N is the number of pairs used.
	N int
	// Ratio is the point estimate of B/A: exp of the Hodges-Lehmann
	// estimate of the log ratios' centre.
	Ratio float64
	// Lo and Hi bound the confidence interval of Ratio (the
	// distribution-free signed-rank interval); Lo is 0 and Hi +Inf when
	// N pairs are too few for the confidence asked.
	Lo, Hi float64
	// P is the two-sided p-value of the Wilcoxon signed-rank test of
	// "no change" on the log ratios.
	P float64
	// SE is the standard error of log(Ratio), read off the interval.
	SE float64
	// MDE is the minimum detectable effect: the relative change of B/A
	// (0.05 = 5%) detected with probability Power at the two-sided
	// level rowAlpha given to Analyze; +Inf when none is detectable.
	MDE float64
}

// Analyze compares the B side of pairs with the A side (see the package
// documentation): the estimate of B/A, its interval at confidence conf,
// the signed-rank p-value, and the minimum detectable effect at level
// rowAlpha (the level a single row is judged at, after any correction for
// multiple rows). It returns an error matching ErrTooFew for fewer than
// MinPairs pairs, ErrNonPositive for a value that is not positive and
// finite, and ErrLevel for conf or rowAlpha outside (0, 1). Cost: sorting
// the n log ratios, then at most 64 passes over them for each of the four
// Walsh averages it selects. It allocates the log ratios (and, the first
// time a number of pairs up to 50 is seen, that size's exact null
// distribution, kept for later calls). Safe for concurrent use.
func Analyze(pairs []Pair, conf, rowAlpha float64) (Estimate, error) {
	if !(conf > 0 && conf < 1) {
		return Estimate{}, fmt.Errorf("confidence %v: %w", conf, ErrLevel)
	}
	if !(rowAlpha > 0 && rowAlpha < 1) {
		return Estimate{}, fmt.Errorf("alpha %v: %w", rowAlpha, ErrLevel)
	}
	if len(pairs) < MinPairs {
		return Estimate{}, fmt.Errorf("%d pairs, want at least %d: %w", len(pairs), MinPairs, ErrTooFew)
	}
	d := make([]float64, len(pairs))
	for i, p := range pairs {
		if !positive(p.A) || !positive(p.B) {
			return Estimate{}, fmt.Errorf("pair %d (A %v, B %v): %w", i, p.A, p.B, ErrNonPositive)
		}
		d[i] = math.Log(p.B / p.A)
	}
	n := len(d)
	e := Estimate{N: n, P: signRankP(d)}
	slices.Sort(d)
	e.Ratio = math.Exp(walshMedian(d))
	z := stats.StdNormal.InvCDF((1 + conf) / 2)
	if c := critical(n, conf); c >= 1 {
		lo, hi := walshKth(d, c), walshKth(d, n*(n+1)/2+1-c)
		e.Lo, e.Hi = math.Exp(lo), math.Exp(hi)
		e.SE = (hi - lo) / (2 * z)
	} else {
		e.Lo, e.Hi, e.SE = 0, math.Inf(1), math.Inf(1)
	}
	e.MDE = mde(e.SE, n, rowAlpha, 0)
	return e, nil
}

func positive(x float64) bool { return x > 0 && !math.IsInf(x, 1) }

// mde returns the smallest relative worsening that a comparison of n
// pairs with standard error se (of the log ratio) flags with probability
// Power, when flagging needs a two-sided p <= rowAlpha and a point
// estimate worse than floor (a fraction; 0 for the test alone). The
// estimate is about normal with mean the true log ratio and deviation
// se, and the test rejects when it is beyond q(1-rowAlpha/2)·se, so both
// hold with probability Power at a true log ratio of
// max(q(1-rowAlpha/2)·se, log(1+floor)) + q(Power)·se. Because se is
// itself estimated from the same n pairs, the quantiles q are Student's
// t with n-1 degrees of freedom rather than normal ones (which matters
// below about 50 pairs). It is +Inf when n pairs cannot reach rowAlpha at
// all.
func mde(se float64, n int, rowAlpha, floor float64) float64 {
	if MinP(n) > rowAlpha {
		return math.Inf(1)
	}
	return shiftFor(se, n-1, rowAlpha, floor)
}

// shiftFor returns the relative change detected with probability Power
// by a test at two-sided level rowAlpha of an estimate with standard
// error se (of the log) estimated with df degrees of freedom, when
// detection also needs the estimate beyond log(1+floor).
func shiftFor(se float64, df int, rowAlpha, floor float64) float64 {
	if math.IsInf(se, 1) || math.IsNaN(se) {
		return math.Inf(1)
	}
	q := stats.InvCDF(stats.TDist{V: float64(df)})
	qA, qP := q(1-rowAlpha/2), q(Power)
	return math.Expm1(math.Max(qA*se, math.Log1p(floor)) + qP*se)
}

// Detectable returns the smallest relative worsening that a verdict on e
// catches with probability Power when it needs both a two-sided p at
// most rowAlpha and a point estimate worse than maxRegress (a fraction),
// as Judge's Regressed does. With maxRegress 0 it is e.MDE at rowAlpha.
func (e Estimate) Detectable(rowAlpha, maxRegress float64) float64 {
	return mde(e.SE, e.N, rowAlpha, maxRegress)
}

// HalfWidth returns the relative half-width of e's interval: the larger
// of Hi/Ratio-1 and 1-Lo/Ratio, so that the interval lies within
// Ratio·(1±HalfWidth). It is +Inf for an unbounded interval or the zero
// Estimate.
func HalfWidth(e Estimate) float64 {
	if e.N == 0 || !(e.Ratio > 0) || math.IsInf(e.Hi, 1) {
		return math.Inf(1)
	}
	return math.Max(e.Hi/e.Ratio-1, 1-e.Lo/e.Ratio)
}
