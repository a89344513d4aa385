package paired

import "math"

// The Walsh averages of d are (d[i]+d[j])/2 for i <= j: M = n(n+1)/2 of
// them. The Hodges-Lehmann estimate is their median and the signed-rank
// interval two of their order statistics. Instead of sorting all M
// (n = 3000 pairs gives 4.5 million), walshKth selects one order
// statistic in O(n) per probe: count(x), the number of Walsh averages at
// most x, takes one two-pointer pass over the sorted d, and a bisection
// over the float64 values between the smallest and the largest average
// ends on the exact k-th average in at most 64 probes.

// walsh returns the Walsh average of a and b as walshCount and walshKth
// compute it: fl(fl(a+b)/2), non-decreasing in each argument.
func walsh(a, b float64) float64 { return (a + b) / 2 }

// walshCount returns the number of Walsh averages of sorted (ascending)
// that are at most x.
func walshCount(sorted []float64, x float64) int {
	n := len(sorted)
	count := 0
	j := n - 1 // the largest j with walsh(sorted[i], sorted[j]) <= x, for the current i
	for i := 0; i < n; i++ {
		for j >= i && walsh(sorted[i], sorted[j]) > x {
			j--
		}
		if j < i {
			break
		}
		count += j - i + 1
	}
	return count
}

// walshKth returns the k-th smallest (1-based, 1 <= k <= M) Walsh average
// of sorted (ascending, finite values).
func walshKth(sorted []float64, k int) float64 {
	n := len(sorted)
	lo, hi := sorted[0], sorted[n-1] // count(lo) >= 1, count(hi) = M
	if walshCount(sorted, lo) >= k {
		return lo
	}
	// Invariant: count(lo) < k <= count(hi). The bisection runs over
	// the float64 values in their order (orderedBits), so it halves the
	// number of values left each probe and ends, after at most 64
	// probes, with lo and hi adjacent: hi is then the smallest value v
	// with count(v) >= k, the k-th average.
	klo, khi := orderedBits(lo), orderedBits(hi)
	for khi-klo > 1 {
		mid := klo + (khi-klo)/2
		if walshCount(sorted, fromOrderedBits(mid)) >= k {
			khi = mid
		} else {
			klo = mid
		}
	}
	return fromOrderedBits(khi)
}

// orderedBits maps a float64 (not NaN) to a uint64 in the same order:
// the sign bit set for positive values, every bit flipped for negative
// ones. -0 and +0 map to adjacent keys.
func orderedBits(x float64) uint64 {
	u := math.Float64bits(x)
	if u>>63 == 1 {
		return ^u
	}
	return u | 1<<63
}

// fromOrderedBits is the inverse of orderedBits.
func fromOrderedBits(u uint64) float64 {
	if u>>63 == 1 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

// walshMedian returns the median of the Walsh averages of sorted: the
// Hodges-Lehmann estimate of its centre of symmetry.
func walshMedian(sorted []float64) float64 {
	n := len(sorted)
	m := n * (n + 1) / 2
	if m%2 == 1 {
		return walshKth(sorted, (m+1)/2)
	}
	return (walshKth(sorted, m/2) + walshKth(sorted, m/2+1)) / 2
}
