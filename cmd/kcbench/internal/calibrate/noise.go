package calibrate

import (
	"fmt"
	"math"
	"slices"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
)

// An Estimator reduces a trial's pairs to one log ratio log(B/A).
type Estimator struct {
	Name string
	F    func([]paired.Pair) float64
}

// Estimators are the estimators Noise compares: the median of the log
// ratios, their 20% trimmed mean, their mean, and the minimum of 5: the
// log of min(B)/min(A) over every 5 consecutive pairs, then the median
// of those. (Package paired reports none of them: its ratio is the
// Hodges-Lehmann estimate, the median of the Walsh averages of the log
// ratios.)
var Estimators = []Estimator{
	{"median", func(p []paired.Pair) float64 { return quantile(logRatios(p), 0.5) }},
	{"trimmed20", func(p []paired.Pair) float64 { return trimmedMean(logRatios(p), 0.2) }},
	{"mean", func(p []paired.Pair) float64 { return trimmedMean(logRatios(p), 0) }},
	{"min-of-5", minOfK(5)},
}

// A RowNoise is the noise of one row over the trials of an A/B
// calibration.
type RowNoise struct {
	Name string `json:"name"`
	// Q1, Q3 are the quartiles of every A/A pair's ratio B/A, pooled
	// over the trials; N the number of pairs.
	Q1 float64 `json:"aa_ratio_q1"`
	Q3 float64 `json:"aa_ratio_q3"`
	N  int     `json:"aa_pairs"`
	// Estimators: per estimator, the standard deviation over the trials
	// of its A/A estimate (as a fraction), the mean shift of its
	// estimate from A/A to the first slowdown, and their quotient, the
	// effect in standard deviations (higher is better).
	Estimators []EstimatorNoise `json:"estimators"`
	// Slowed says whether the trials had a slowdown (else the shifts
	// are 0 and not printed).
	Slowed bool `json:"slowed"`
}

// EstimatorNoise is one estimator's precision on a row.
type EstimatorNoise struct {
	Name  string  `json:"name"`
	SD    float64 `json:"aa_sd"`
	Shift float64 `json:"shift"`
	Z     float64 `json:"shift_in_sd"`
}

// Noise summarizes the noise of every row of trials (which need at least
// two trials for the spreads, and a slowdown for the shifts). The trials
// must pass CheckTrials with rows.
func Noise(rows []string, trials []ABTrial) []RowNoise {
	var out []RowNoise
	for ri, name := range rows {
		rn := RowNoise{Name: name}
		var all []float64
		for _, tr := range trials {
			all = append(all, logRatios(tr.AA[ri])...)
		}
		rn.N = len(all)
		rn.Slowed = len(trials) > 0 && len(trials[0].Slowed) > 0
		rn.Q1, rn.Q3 = math.Exp(quantile(all, 0.25)), math.Exp(quantile(all, 0.75))
		for _, est := range Estimators {
			var aa, slow []float64
			for _, tr := range trials {
				aa = append(aa, est.F(tr.AA[ri]))
				if len(tr.Slowed) > 0 {
					slow = append(slow, est.F(tr.Slowed[0][ri]))
				}
			}
			en := EstimatorNoise{Name: est.Name, SD: sd(aa)}
			if len(slow) > 0 {
				en.Shift = trimmedMean(slow, 0) - trimmedMean(aa, 0)
				if en.SD > 0 {
					en.Z = en.Shift / en.SD
				}
			}
			rn.Estimators = append(rn.Estimators, en)
		}
		out = append(out, rn)
	}
	return out
}

// String is the row's noise line.
func (rn RowNoise) String() string {
	s := fmt.Sprintf("noise %s: A/A pair ratios IQR %.3f-%.3f (%d pairs);", rn.Name, rn.Q1, rn.Q3, rn.N)
	for _, e := range rn.Estimators {
		if rn.Slowed {
			s += fmt.Sprintf(" %s sd %.1f%% shift %+.1f%% (%.1f sd)", e.Name, 100*e.SD, 100*e.Shift, e.Z)
		} else {
			s += fmt.Sprintf(" %s sd %.1f%%", e.Name, 100*e.SD)
		}
	}
	return s
}

func logRatios(p []paired.Pair) []float64 {
	var d []float64
	for _, x := range p {
		if x.A > 0 && x.B > 0 {
			d = append(d, math.Log(x.B/x.A))
		}
	}
	return d
}

// quantile is the linearly interpolated q-quantile of xs (0 if empty).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	if lo+1 >= len(s) {
		return s[lo]
	}
	return s[lo] + (pos-float64(lo))*(s[lo+1]-s[lo])
}

// trimmedMean is the mean of xs without the lowest and highest frac of
// them.
func trimmedMean(xs []float64, frac float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	k := int(frac * float64(len(s)))
	s = s[k : len(s)-k]
	var sum float64
	for _, x := range s {
		sum += x
	}
	return sum / float64(len(s))
}

// minOfK returns the minimum-of-k estimator.
func minOfK(k int) func([]paired.Pair) float64 {
	return func(p []paired.Pair) float64 {
		var d []float64
		for i := 0; i+k <= len(p); i += k {
			ma, mb := math.Inf(1), math.Inf(1)
			for _, x := range p[i : i+k] {
				ma, mb = min(ma, x.A), min(mb, x.B)
			}
			if ma > 0 && mb > 0 {
				d = append(d, math.Log(mb/ma))
			}
		}
		return quantile(d, 0.5)
	}
}

// sd is the sample standard deviation (0 for fewer than two values).
func sd(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := trimmedMean(xs, 0)
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}
