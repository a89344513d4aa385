package paired

import (
	"math"

	"github.com/montanaflynn/stats"
)

// madScale turns a median absolute deviation into a standard deviation
// estimate for normal noise.
const madScale = 1.4826

// UnpairedMDE returns the minimum detectable effect (a fraction, detected
// with probability Power at two-sided level rowAlpha) of the stored-
// baseline comparison: a (the baseline) and b (the current run) are two
// independent samples judged with the Mann-Whitney U test, as the
// stored-baseline gate does.
//
// It assumes normal noise of the logs with one deviation σ, estimated
// robustly (the median absolute deviation of each sample's logs from
// that sample's median, corrected for small samples by n/(n-0.8),
// pooled, times 1.4826), and uses the U test's
// efficiency of 3/π against the t-test: the shift estimate has standard
// error σ·sqrt(π/3·(1/len(a)+1/len(b))), and the quantiles are Student's
// t with len(a)+len(b)-2 degrees of freedom. Above all it assumes that both
// samples were taken on a machine running at the same speed: the spread
// within one run says nothing about how far the machine drifts between
// the run that made the baseline and this one, and a drift of the
// machine is reported as a change of the code. On a machine whose speed
// wanders (any shared or virtual one) this MDE is a lower bound.
//
// It is +Inf when the test cannot reach rowAlpha even with the two
// samples entirely apart (2/C(n1+n2, n1) > rowAlpha, exact U test), and
// for input it cannot use: a sample of fewer than 2 values, a value that
// is not positive and finite, rowAlpha outside (0, 1).
func UnpairedMDE(a, b []float64, rowAlpha float64) float64 {
	if len(a) < 2 || len(b) < 2 || !(rowAlpha > 0 && rowAlpha < 1) {
		return math.Inf(1)
	}
	la, okA := logs(a)
	lb, okB := logs(b)
	if !okA || !okB {
		return math.Inf(1)
	}
	n1, n2 := float64(len(a)), float64(len(b))
	lgC := func(x float64) float64 { v, _ := math.Lgamma(x + 1); return v }
	if minPU := 2 * math.Exp(lgC(n1)+lgC(n2)-lgC(n1+n2)); minPU > rowAlpha {
		return math.Inf(1)
	}
	madA, _ := stats.MedianAbsoluteDeviationPopulation(la)
	madB, _ := stats.MedianAbsoluteDeviationPopulation(lb)
	madA *= smallMAD(len(a))
	madB *= smallMAD(len(b))
	sigma := madScale * math.Sqrt((n1*madA*madA+n2*madB*madB)/(n1+n2))
	se := sigma * math.Sqrt(math.Pi/3*(1/n1+1/n2))
	return shiftFor(se, len(a)+len(b)-2, rowAlpha, 0)
}

// smallMAD is the small-sample correction of the median absolute
// deviation (Croux and Rousseeuw's n/(n-0.8)), which runs low on a
// handful of values.
func smallMAD(n int) float64 { return float64(n) / (float64(n) - 0.8) }

// logs returns the natural logarithms of xs, and false if a value is not
// positive and finite.
func logs(xs []float64) ([]float64, bool) {
	out := make([]float64, len(xs))
	for i, x := range xs {
		if !positive(x) {
			return nil, false
		}
		out[i] = math.Log(x)
	}
	return out, true
}
