package paired

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aclements/go-moremath/stats"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// A noise draws one log ratio of a pair under "no change".
type noise struct {
	name string
	draw func(r *rand.Rand) float64
}

var noises = []noise{
	{"normal", func(r *rand.Rand) float64 { return 0.08 * r.NormFloat64() }},
	// Bursts: one pair in ten caught a noisy neighbour on one side.
	{"bursts", func(r *rand.Rand) float64 {
		if r.IntN(10) == 0 {
			return 0.6 * r.NormFloat64()
		}
		return 0.05 * r.NormFloat64()
	}},
	// Heavy tails: Student's t with 3 degrees of freedom.
	{"t3", func(r *rand.Rand) float64 {
		z := r.NormFloat64()
		chi := 0.0
		for range 3 {
			x := r.NormFloat64()
			chi += x * x
		}
		return 0.05 * z / math.Sqrt(chi/3)
	}},
}

// pairsWith draws n pairs whose log ratios are shift plus noise, around
// an A that drifts by a factor of up to 3 (which pairing must cancel).
func pairsWith(r *rand.Rand, nz noise, n int, shift float64) []Pair {
	out := make([]Pair, n)
	for i := range out {
		a := 200e-9 * (1 + 2*r.Float64())
		out[i] = Pair{A: a, B: a * math.Exp(shift+nz.draw(r))}
	}
	return out
}

// TestMDEPower checks the meaning of Estimate.MDE on synthetic data: a
// slowdown of the median MDE of null runs is detected (p <= rowAlpha,
// Ratio > 1) in about Power of fresh runs of the same size and noise.
func TestMDEPower(t *testing.T) {
	skipUnderRace(t)
	const (
		nullRuns = 200
		runs     = 1000
		rowAlpha = 0.05 / 6
	)
	for _, n := range []int{30, 120} {
		for _, nz := range noises {
			r := rand.New(rand.NewPCG(uint64(n), 7))
			var mdes []float64
			for range nullRuns {
				e, err := Analyze(pairsWith(r, nz, n, 0), 0.95, rowAlpha)
				if err != nil {
					t.Fatal(err)
				}
				mdes = append(mdes, e.MDE)
			}
			slices.Sort(mdes)
			m := mdes[len(mdes)/2]
			hits := 0
			for range runs {
				e, err := Analyze(pairsWith(r, nz, n, math.Log1p(m)), 0.95, rowAlpha)
				if err != nil {
					t.Fatal(err)
				}
				if e.P <= rowAlpha && e.Ratio > 1 {
					hits++
				}
			}
			rate := float64(hits) / runs
			t.Logf("n=%d %s: MDE %.4f detected %.3f", n, nz.name, m, rate)
			// 1000 runs: binomial deviation 0.0095; the rest is the
			// normal approximation's error at small n.
			if rate < 0.85 || rate > 0.95 {
				t.Errorf("n=%d %s: MDE %.4f detected in %.3f of runs; want about %v", n, nz.name, m, rate, Power)
			}
		}
	}
}

// TestDetectablePower checks Judged.Detectable: with a MaxRegress floor
// above the test's own MDE, a slowdown of Detectable gives a Regressed
// verdict in about Power of runs.
func TestDetectablePower(t *testing.T) {
	skipUnderRace(t)
	r := rand.New(rand.NewPCG(3, 4))
	nz := noises[0]
	opts := Options{Alpha: 0.05, MaxRegress: 0.05, Confidence: 0.95}
	null := Judge([]Row{{Name: "x", Pairs: pairsWith(r, nz, 100, 0)}}, opts)[0]
	det := null.Detectable
	if !(det > opts.MaxRegress && det > null.Est.MDE) {
		t.Fatalf("Detectable %v, want above MaxRegress %v and MDE %v", det, opts.MaxRegress, null.Est.MDE)
	}
	hits := 0
	const runs = 600
	for range runs {
		j := Judge([]Row{{Name: "x", Pairs: pairsWith(r, nz, 100, math.Log1p(det))}}, opts)[0]
		if j.Verdict == Regressed {
			hits++
		}
	}
	if rate := float64(hits) / runs; rate < 0.84 || rate > 0.96 {
		t.Errorf("Detectable %.4f: regressed in %.3f of runs; want about %v", det, rate, Power)
	}
}

// TestUnpairedMDEPower checks UnpairedMDE the same way, with the
// Mann-Whitney U test (go-moremath's, as the stored-baseline gate uses
// through benchmath) on two independent samples of normal noise.
func TestUnpairedMDEPower(t *testing.T) {
	skipUnderRace(t)
	const rowAlpha = 0.01
	r := rand.New(rand.NewPCG(5, 6))
	sample := func(n int, shift float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = 300e-9 * math.Exp(shift+0.1*r.NormFloat64())
		}
		return xs
	}
	for _, n := range []int{10, 30} {
		var mdes []float64
		for range 200 {
			mdes = append(mdes, UnpairedMDE(sample(n, 0), sample(n, 0), rowAlpha))
		}
		slices.Sort(mdes)
		m := mdes[len(mdes)/2]
		hits := 0
		const runs = 600
		for range runs {
			a, b := sample(n, 0), sample(n, math.Log1p(m))
			res, err := stats.MannWhitneyUTest(a, b, stats.LocationDiffers)
			if err != nil {
				t.Fatal(err)
			}
			if res.P <= rowAlpha {
				hits++
			}
		}
		rate := float64(hits) / runs
		t.Logf("n=%d: unpaired MDE %.4f detected %.3f", n, m, rate)
		if rate < 0.82 || rate > 0.96 {
			t.Errorf("n=%d: unpaired MDE %.4f detected in %.3f of runs; want about %v", n, m, rate, Power)
		}
	}
}

// TestFalseAlarms checks the family-wise false-alarm rate of Judge on
// A/A runs (six rows of 30 pairs, every noise) and the coverage of the
// 95% interval.
func TestFalseAlarms(t *testing.T) {
	skipUnderRace(t)
	const runs = 600
	r := rand.New(rand.NewPCG(9, 10))
	opts := Options{Alpha: 0.05, MaxRegress: 0, Confidence: 0.95}
	for _, nz := range noises {
		alarms, covered, intervals := 0, 0, 0
		for range runs {
			rows := make([]Row, 6)
			for i := range rows {
				rows[i] = Row{Name: "r", Pairs: pairsWith(r, nz, 30, 0)}
			}
			any := false
			for _, j := range Judge(rows, opts) {
				any = any || j.Verdict == Regressed || j.Verdict == Improved
				intervals++
				if j.Est.Lo <= 1 && 1 <= j.Est.Hi {
					covered++
				}
			}
			if any {
				alarms++
			}
		}
		rate, cover := float64(alarms)/runs, float64(covered)/float64(intervals)
		t.Logf("%s: family-wise false alarms %.4f, coverage %.4f", nz.name, rate, cover)
		// 600 runs: binomial deviation 0.0089 at 0.05; three of them.
		if rate > 0.05+0.027 {
			t.Errorf("%s: family-wise false-alarm rate %.4f; want at most 0.05", nz.name, rate)
		}
		// The exact interval is conservative: coverage at least 95%.
		if cover < 0.94 || cover > 0.975 {
			t.Errorf("%s: coverage of the 95%% interval %.4f", nz.name, cover)
		}
	}
}

// skipUnderRace skips a simulation under the race detector, which makes
// it ten times slower and has nothing to find in it (the simulations are
// single-goroutine and deterministic; plain go test runs them).
func skipUnderRace(t *testing.T) {
	t.Helper()
	if goruntime.RaceEnabled {
		t.Skip("a deterministic single-goroutine simulation; run without -race")
	}
}
