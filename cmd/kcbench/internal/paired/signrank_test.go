package paired

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSignRankKnown checks the exact test on R's example of
// wilcox.test(x, y, paired = TRUE): V = 40, p = 0.03906.
func TestSignRankKnown(t *testing.T) {
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	if p := signRankP(d); math.Abs(p-0.0390625) > 1e-9 {
		t.Errorf("p = %v; want 0.0390625 (R: 0.03906)", p)
	}
	// Six pairs all one way: the smallest p of six pairs.
	if p, want := signRankP([]float64{1, 2, 3, 4, 5, 6}), 2.0/64; p != want || MinP(6) != want {
		t.Errorf("p = %v, MinP(6) = %v; want %v", p, MinP(6), want)
	}
}

func TestSignRankEdges(t *testing.T) {
	if p := signRankP([]float64{0, 0, 0}); p != 1 {
		t.Errorf("all zero: p = %v; want 1", p)
	}
	// Symmetric about 0: T+ is its mean, p is 1.
	if p := signRankP([]float64{-3, -2, -1, 1, 2, 3}); p != 1 {
		t.Errorf("symmetric: p = %v; want 1", p)
	}
	// Ties and zeros go through the normal approximation with the tie
	// correction; a strongly one-sided tied sample is still significant.
	tied := []float64{0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, -1}
	if p := signRankP(tied); !(p > 0 && p < 0.01) {
		t.Errorf("tied, one-sided: p = %v; want in (0, 0.01)", p)
	}
}

// TestSignRankNormal checks the normal approximation against the exact
// distribution at the switch-over size: p within 0.005, the interval's
// ranks within 1%.
func TestSignRankNormal(t *testing.T) {
	const n = exactLimit
	cdf := signRankCDF(n)
	if got := cdf[len(cdf)-1]; math.Abs(got-1) > 1e-12 {
		t.Fatalf("exact cdf ends at %v; want 1", got)
	}
	for _, tplus := range []int{300, 400, 450, 500, 600} {
		exact := min(1, 2*min(cdf[tplus], 1-cdf[tplus-1]))
		approx := signRankNormalP(float64(tplus), n, 0)
		if math.Abs(exact-approx) > 0.005 {
			t.Errorf("T+ = %d: exact p %v, normal %v", tplus, exact, approx)
		}
	}
	for _, conf := range []float64{0.9, 0.95, 0.99} {
		if e, a := critical(n, conf), criticalNormal(n, conf); math.Abs(float64(e-a)) > 0.01*float64(e) {
			t.Errorf("conf %v: exact critical rank %d, normal %d", conf, e, a)
		}
	}
	if c := critical(6, 0.95); c != 1 {
		t.Errorf("critical(6, 0.95) = %d; want 1", c)
	}
	if c := critical(5, 0.95); c != 0 {
		t.Errorf("critical(5, 0.95) = %d; want 0 (unbounded)", c)
	}
	// At the boundary: with 2 pairs P(T+ <= 0) is 1/4, exactly (1-0.5)/2,
	// so rank 1 still bounds a 50% interval (its coverage is 1 - 2/4).
	if c := critical(2, 0.5); c != 1 {
		t.Errorf("critical(2, 0.5) = %d; want 1 (P(T+ <= 0) = 1/4 is at most 1/4)", c)
	}
}

// TestWalshKth checks selection against sorting every Walsh average,
// with ties, zeros and negative values.
func TestWalshKth(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 30; n++ {
		d := make([]float64, n)
		for i := range d {
			switch r.IntN(4) {
			case 0:
				d[i] = 0
			case 1:
				d[i] = float64(r.IntN(3)) - 1
			default:
				d[i] = r.NormFloat64() * 1e-3
			}
		}
		slices.Sort(d)
		var all []float64
		for i := range d {
			for j := i; j < n; j++ {
				all = append(all, walsh(d[i], d[j]))
			}
		}
		slices.Sort(all)
		for k := 1; k <= len(all); k++ {
			if got := walshKth(d, k); got != all[k-1] {
				t.Fatalf("n=%d k=%d: got %v; want %v", n, k, got, all[k-1])
			}
		}
	}
}

func TestOrderedBits(t *testing.T) {
	xs := []float64{-math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64, 1e-300, 1, math.MaxFloat64}
	for i, x := range xs {
		if got := fromOrderedBits(orderedBits(x)); got != x || math.Signbit(got) != math.Signbit(x) {
			t.Errorf("round trip of %v: %v", x, got)
		}
		if i > 0 && orderedBits(xs[i-1]) >= orderedBits(x) {
			t.Errorf("orderedBits(%v) >= orderedBits(%v)", xs[i-1], x)
		}
	}
}
