package paired

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"github.com/aclements/go-moremath/stats"
)

// exactLimit is the largest number of pairs for which the signed-rank
// statistic's exact null distribution is used: its counts (at most 2^50)
// are still exact in a float64, and computing them costs n·n(n+1)/2
// additions, about 64k at the limit.
const exactLimit = 50

// cdfs caches signRankCDF for n up to exactLimit: each entry is computed
// once, by the first caller (sync.Once), and only read afterwards, so any
// goroutine may use it (about 180 KB when all are filled).
var cdfs [exactLimit + 1]struct {
	once sync.Once
	cdf  []float64
}

// signRankCDF returns the exact null distribution of the signed-rank
// statistic T+ for n pairs without ties (0 <= n <= exactLimit):
// cdf[t] = P(T+ <= t), for t from 0 to n(n+1)/2. T+ is the sum of a
// random subset of the ranks 1..n, each subset having probability 2^-n.
// The result is shared: callers must not modify it.
func signRankCDF(n int) []float64 {
	c := &cdfs[n]
	c.once.Do(func() { c.cdf = computeSignRankCDF(n) })
	return c.cdf
}

// computeSignRankCDF computes signRankCDF(n) by counting the subsets of
// each sum, one rank at a time.
func computeSignRankCDF(n int) []float64 {
	m := n * (n + 1) / 2
	counts := make([]float64, m+1)
	counts[0] = 1
	top := 0
	for r := 1; r <= n; r++ {
		top += r
		for s := top; s >= r; s-- {
			counts[s] += counts[s-r]
		}
	}
	scale := math.Ldexp(1, -n)
	cdf := make([]float64, m+1)
	run := 0.0
	for s, c := range counts {
		run += c
		cdf[s] = run * scale
	}
	return cdf
}

// signRankP returns the two-sided p-value of the Wilcoxon signed-rank
// test of d against "symmetric about 0". Zero differences are dropped
// (Wilcoxon's rule); ties among the rest get mid-ranks. With no non-zero
// difference, p is 1.
func signRankP(d []float64) float64 {
	var nz []float64
	for _, x := range d {
		if x != 0 {
			nz = append(nz, x)
		}
	}
	n := len(nz)
	if n == 0 {
		return 1
	}
	slices.SortFunc(nz, func(a, b float64) int { return cmp.Compare(math.Abs(a), math.Abs(b)) })
	tplus, tieSum := 0.0, 0.0
	ties := false
	for i := 0; i < n; {
		j := i
		for j < n && math.Abs(nz[j]) == math.Abs(nz[i]) {
			j++
		}
		rank := float64(i+j+1) / 2 // mid-rank of positions i..j-1, 1-based
		for k := i; k < j; k++ {
			if nz[k] > 0 {
				tplus += rank
			}
		}
		if t := float64(j - i); t > 1 {
			ties = true
			tieSum += t*t*t - t
		}
		i = j
	}
	if !ties && n <= exactLimit {
		cdf := signRankCDF(n)
		t := int(tplus)
		lower := cdf[t]
		upper := 1.0
		if t > 0 {
			upper = 1 - cdf[t-1]
		}
		return min(1, 2*min(lower, upper))
	}
	return signRankNormalP(tplus, n, tieSum)
}

// signRankNormalP is the normal approximation of the signed-rank test's
// two-sided p-value for T+ = tplus over n non-zero differences, with the
// tie correction tieSum = Σ(t³-t) over groups of t tied |d| and a
// continuity correction of 1/2.
func signRankNormalP(tplus float64, n int, tieSum float64) float64 {
	nf := float64(n)
	mu := nf * (nf + 1) / 4
	sigma := math.Sqrt(nf*(nf+1)*(2*nf+1)/24 - tieSum/48)
	if sigma == 0 {
		return 1
	}
	z := math.Max(0, math.Abs(tplus-mu)-0.5) / sigma
	return min(1, 2*stats.StdNormal.CDF(-z))
}

// MinP returns the smallest two-sided p-value the signed-rank test can
// give with n pairs, 2/2^n (capped at 1): all pairs non-zero and pointing
// the same way. A row of n pairs judged at level rowAlpha can only be
// significant when MinP(n) <= rowAlpha.
func MinP(n int) float64 {
	return math.Min(1, math.Ldexp(2, -max(n, 0)))
}

// PairsFor returns the fewest pairs whose MinP is at most level, and at
// least MinPairs: n >= 1 + log2(1/level). It returns 0 for a level that
// is not positive, which no number of pairs reaches.
func PairsFor(level float64) int {
	if !(level > 0) {
		return 0
	}
	for n := MinPairs; ; n++ {
		if MinP(n) <= level {
			return n
		}
	}
}

// critical returns c, the rank of the Walsh average that is the lower
// bound of the signed-rank interval at confidence conf for n pairs (the
// upper bound has rank M+1-c, M = n(n+1)/2): the largest c with
// P(T+ <= c-1) <= (1-conf)/2. It is 0 when n pairs are too few for that
// confidence, and the interval is then unbounded.
func critical(n int, conf float64) int {
	if n <= exactLimit {
		half := (1 - conf) / 2
		cdf := signRankCDF(n)
		c := 0
		for c < len(cdf) && cdf[c] <= half {
			c++
		}
		return c
	}
	return criticalNormal(n, conf)
}

// criticalNormal is critical by the normal approximation of T+, with a
// continuity correction of 1/2.
func criticalNormal(n int, conf float64) int {
	nf := float64(n)
	mu := nf * (nf + 1) / 4
	sigma := math.Sqrt(nf * (nf + 1) * (2*nf + 1) / 24)
	z := stats.StdNormal.InvCDF((1 + conf) / 2)
	return max(0, int(math.Floor(mu+0.5-z*sigma)))
}
