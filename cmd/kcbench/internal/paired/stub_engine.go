// Package paired judges paired A/B measurements.
//
// This file is the gate-engine branch's stand-in with the agreed API, so
// that the A/B machinery compiles and is tested before the statistics
// helper's package is merged; the merge replaces it with that package.
// Its statistics are real, if plain: the ratio is the exponential of the
// median log ratio, its interval the distribution-free order-statistic
// interval of that median (go-moremath QuantileCI), the p-value the
// two-sided Wilcoxon signed-rank test (normal approximation with tie
// correction), and the minimum detectable effect the normal-theory one
// at 90% power from the MAD of the log ratios, inflated by the median's
// efficiency.
package paired

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"
)

// A Pair is one A sample and its neighbouring B sample.
type Pair struct{ A, B float64 }

// An Estimate is the paired estimate of B/A.
type Estimate struct {
	N                     int
	Ratio, Lo, Hi, P, MDE float64
}

// ErrTooFew reports fewer pairs than an estimate needs.
var ErrTooFew = errors.New("paired: too few pairs")

// MinPairs is the fewest pairs Analyze accepts.
const MinPairs = 6

var normal = stats.NormalDist{Mu: 0, Sigma: 1}

// Analyze estimates the ratio B/A from pairs.
func Analyze(pairs []Pair, conf float64, rowAlpha float64) (Estimate, error) {
	d := make([]float64, 0, len(pairs))
	for _, p := range pairs {
		if p.A > 0 && p.B > 0 {
			d = append(d, math.Log(p.B/p.A))
		}
	}
	if len(d) < MinPairs {
		return Estimate{N: len(d)}, fmt.Errorf("%w: %d usable, need %d", ErrTooFew, len(d), MinPairs)
	}
	slices.Sort(d)
	s := stats.Sample{Xs: d, Sorted: true}
	med := s.Quantile(0.5)
	_, lo, hi := stats.QuantileCI(len(d), 0.5, conf).SampleCI(s)
	e := Estimate{N: len(d), Ratio: math.Exp(med), Lo: math.Exp(lo), Hi: math.Exp(hi), P: wilcoxon(d)}
	mad := make([]float64, len(d))
	for i, x := range d {
		mad[i] = math.Abs(x - med)
	}
	slices.Sort(mad)
	sd := 1.4826 * stats.Sample{Xs: mad, Sorted: true}.Quantile(0.5)
	z := normal.InvCDF(1-rowAlpha/2) + normal.InvCDF(0.9)
	e.MDE = math.Expm1(z * sd * math.Sqrt(math.Pi/2) / math.Sqrt(float64(len(d))))
	return e, nil
}

// wilcoxon is the two-sided signed-rank p-value of d against 0.
func wilcoxon(d []float64) float64 {
	type rk struct{ abs, sign float64 }
	var xs []rk
	for _, x := range d {
		if x != 0 {
			xs = append(xs, rk{math.Abs(x), math.Copysign(1, x)})
		}
	}
	n := float64(len(xs))
	if n == 0 {
		return 1
	}
	slices.SortFunc(xs, func(a, b rk) int {
		switch {
		case a.abs < b.abs:
			return -1
		case a.abs > b.abs:
			return 1
		}
		return 0
	})
	var w, ties float64
	for i := 0; i < len(xs); {
		j := i
		for j < len(xs) && xs[j].abs == xs[i].abs {
			j++
		}
		r := float64(i+j+1) / 2
		t := float64(j - i)
		ties += t*t*t - t
		for k := i; k < j; k++ {
			if xs[k].sign > 0 {
				w += r
			}
		}
		i = j
	}
	mean := n * (n + 1) / 4
	v := n*(n+1)*(2*n+1)/24 - ties/48
	if v <= 0 {
		return 1
	}
	z := (math.Abs(w-mean) - 0.5) / math.Sqrt(v)
	return min(1, 2*(1-normal.CDF(max(z, 0))))
}

// A Row is one benchmark and unit's pairs.
type Row struct {
	Name           string
	Unit           string
	HigherIsBetter bool
	Pairs          []Pair
}

// Options configures Judge.
type Options struct{ Alpha, MaxRegress, Confidence float64 }

// A Verdict is the outcome of a row.
type Verdict int

// Verdicts.
const (
	OK Verdict = iota
	Improved
	Regressed
	TooFew
)

func (v Verdict) String() string {
	return [...]string{"ok", "improved", "regressed", "too-few-samples"}[v]
}

// Judged is one judged row.
type Judged struct {
	Row     Row
	Est     Estimate
	AdjP    float64
	Verdict Verdict
}

// Judge analyzes every row, Holm-corrects the p-values across them and
// gives each its verdict.
func Judge(rows []Row, opts Options) []Judged {
	if opts.Confidence == 0 {
		opts.Confidence = 0.95
	}
	out := make([]Judged, len(rows))
	var idx []int
	for i, r := range rows {
		out[i].Row = r
		e, err := Analyze(r.Pairs, opts.Confidence, opts.Alpha/float64(max(1, len(rows))))
		out[i].Est = e
		if err != nil {
			out[i].Verdict, out[i].AdjP = TooFew, 1
			continue
		}
		idx = append(idx, i)
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpF(out[a].Est.P, out[b].Est.P) })
	m := float64(len(idx))
	run := 0.0
	for k, i := range idx {
		run = max(run, min(1, (m-float64(k))*out[i].Est.P))
		out[i].AdjP = run
	}
	for _, i := range idx {
		j := &out[i]
		worse := j.Est.Ratio - 1
		if j.Row.HigherIsBetter {
			worse = 1/j.Est.Ratio - 1
		}
		switch {
		case j.AdjP > opts.Alpha:
			j.Verdict = OK
		case worse > opts.MaxRegress:
			j.Verdict = Regressed
		case worse < 0:
			j.Verdict = Improved
		}
	}
	return out
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// HalfWidth is the half width of e's interval, as a fraction of its ratio.
func HalfWidth(e Estimate) float64 {
	if e.Ratio <= 0 || math.IsInf(e.Hi, 0) || math.IsInf(e.Lo, 0) {
		return math.Inf(1)
	}
	return (e.Hi - e.Lo) / 2 / e.Ratio
}

// UnpairedMDE is the minimum detectable effect at 90% power of an
// unpaired comparison of a with b.
func UnpairedMDE(a, b []float64, rowAlpha float64) float64 {
	sa, sb := logSD(a), logSD(b)
	if len(a) == 0 || len(b) == 0 {
		return math.Inf(1)
	}
	z := normal.InvCDF(1-rowAlpha/2) + normal.InvCDF(0.9)
	return math.Expm1(z * math.Sqrt(math.Pi/3) * math.Sqrt(sa*sa/float64(len(a))+sb*sb/float64(len(b))))
}

func logSD(xs []float64) float64 {
	var l []float64
	for _, x := range xs {
		if x > 0 {
			l = append(l, math.Log(x))
		}
	}
	if len(l) < 2 {
		return math.Inf(1)
	}
	slices.Sort(l)
	med := stats.Sample{Xs: l, Sorted: true}.Quantile(0.5)
	for i := range l {
		l[i] = math.Abs(l[i] - med)
	}
	slices.Sort(l)
	return 1.4826 * stats.Sample{Xs: l, Sorted: true}.Quantile(0.5)
}
