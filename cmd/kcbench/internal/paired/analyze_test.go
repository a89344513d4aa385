package paired

import (
	"errors"
	"math"
	"sync"
	"testing"
)

func pairsOf(ratios ...float64) []Pair {
	out := make([]Pair, len(ratios))
	for i, r := range ratios {
		a := 100 + float64(i) // A varies: only the ratio matters
		out[i] = Pair{A: a, B: a * r}
	}
	return out
}

func TestAnalyzeErrors(t *testing.T) {
	ok := pairsOf(1, 1.1, 0.9, 1.05, 1.2, 0.95)
	for _, tc := range []struct {
		name           string
		pairs          []Pair
		conf, rowAlpha float64
		want           error
	}{
		{"none", nil, 0.95, 0.05, ErrTooFew},
		{"five", ok[:5], 0.95, 0.05, ErrTooFew},
		{"zero", append(pairsOf(1, 1, 1, 1, 1), Pair{A: 0, B: 1}), 0.95, 0.05, ErrNonPositive},
		{"negative", append(pairsOf(1, 1, 1, 1, 1), Pair{A: 1, B: -1}), 0.95, 0.05, ErrNonPositive},
		{"nan", append(pairsOf(1, 1, 1, 1, 1), Pair{A: math.NaN(), B: 1}), 0.95, 0.05, ErrNonPositive},
		{"inf", append(pairsOf(1, 1, 1, 1, 1), Pair{A: 1, B: math.Inf(1)}), 0.95, 0.05, ErrNonPositive},
		{"conf 1", ok, 1, 0.05, ErrLevel},
		{"conf 0", ok, 0, 0.05, ErrLevel},
		{"alpha 0", ok, 0.95, 0, ErrLevel},
		{"alpha nan", ok, 0.95, math.NaN(), ErrLevel},
	} {
		if _, err := Analyze(tc.pairs, tc.conf, tc.rowAlpha); !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v; want %v", tc.name, err, tc.want)
		}
	}
	if _, err := Analyze(ok, 0.95, 0.05); err != nil {
		t.Errorf("six good pairs: %v", err)
	}
}

func TestAnalyzeAllEqual(t *testing.T) {
	e, err := Analyze(pairsOf(1, 1, 1, 1, 1, 1, 1, 1), 0.95, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if e.N != 8 || e.Ratio != 1 || e.Lo != 1 || e.Hi != 1 || e.P != 1 || e.MDE != 0 || HalfWidth(e) != 0 {
		t.Errorf("all equal: %+v, half-width %v; want ratio, bounds and p 1, MDE and half-width 0", e, HalfWidth(e))
	}
	// Eight pairs cannot reach 2^-8: nothing is detectable.
	if e, _ := Analyze(pairsOf(1, 1, 1, 1, 1, 1, 1, 1), 0.95, 0.001); !math.IsInf(e.MDE, 1) {
		t.Errorf("8 pairs at alpha 0.001: MDE %v; want +Inf", e.MDE)
	}
}

func TestAnalyzeShift(t *testing.T) {
	// Ten pairs all slower by 8% to 12%: B/A about 1.1, significant.
	e, err := Analyze(pairsOf(1.08, 1.12, 1.09, 1.11, 1.10, 1.095, 1.105, 1.103, 1.085, 1.115), 0.95, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.Ratio-1.1) > 0.005 || !(e.Lo < e.Ratio && e.Ratio < e.Hi) || e.Lo < 1.08 || e.Hi > 1.12 {
		t.Errorf("ratio %v in [%v, %v]; want about 1.1 inside [1.08, 1.12]", e.Ratio, e.Lo, e.Hi)
	}
	if e.P != MinP(10) {
		t.Errorf("p = %v; want %v (every pair slower)", e.P, MinP(10))
	}
	if hw := HalfWidth(e); !(hw > 0 && hw < 0.02) {
		t.Errorf("half-width %v; want in (0, 2%%)", hw)
	}
	// The log scale makes A/B the mirror image of B/A.
	var swapped []Pair
	for _, p := range pairsOf(1.08, 1.12, 1.09, 1.11, 1.10, 1.095, 1.105, 1.103, 1.085, 1.115) {
		swapped = append(swapped, Pair{A: p.B, B: p.A})
	}
	s, _ := Analyze(swapped, 0.95, 0.05)
	if math.Abs(s.Ratio*e.Ratio-1) > 1e-12 || math.Abs(s.Lo*e.Hi-1) > 1e-12 || s.P != e.P {
		t.Errorf("swapped: %+v; want the reciprocal of %+v", s, e)
	}
}

func TestAnalyzeUnbounded(t *testing.T) {
	e, err := Analyze(pairsOf(1, 1.1, 0.9, 1.05, 1.2, 0.95), 0.99, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if e.Lo != 0 || !math.IsInf(e.Hi, 1) || !math.IsInf(HalfWidth(e), 1) || !math.IsInf(e.MDE, 1) {
		t.Errorf("6 pairs at 99%%: %+v; want an unbounded interval and MDE", e)
	}
	if !math.IsInf(HalfWidth(Estimate{}), 1) {
		t.Error("HalfWidth of the zero Estimate is not +Inf")
	}
}

func TestUnpairedMDEEdges(t *testing.T) {
	a := []float64{1, 1.1, 0.9, 1.05, 0.95, 1.02}
	for _, tc := range []struct {
		name  string
		a, b  []float64
		alpha float64
	}{
		{"one value", a[:1], a, 0.05},
		{"zero", a, []float64{1, 0}, 0.05},
		{"alpha 1", a, a, 1},
		{"3 against 3 at 0.05", a[:3], a[:3], 0.05}, // 2/C(6,3) = 0.1
	} {
		if m := UnpairedMDE(tc.a, tc.b, tc.alpha); !math.IsInf(m, 1) {
			t.Errorf("%s: MDE %v; want +Inf", tc.name, m)
		}
	}
	if m := UnpairedMDE(a, a, 0.05); !(m > 0 && m < 1) {
		t.Errorf("6 against 6: MDE %v; want in (0, 1)", m)
	}
}

// TestAnalyzeConcurrent runs Analyze from several goroutines at once
// (the exact distributions are cached on first use), for the race
// detector, and checks they all agree.
func TestAnalyzeConcurrent(t *testing.T) {
	want := make([]Estimate, 40)
	for n := MinPairs; n < len(want); n++ {
		want[n], _ = Analyze(slower(n, 1.05), 0.95, 0.05)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for n := MinPairs + g; n < len(want); n++ {
				if got, err := Analyze(slower(n, 1.05), 0.95, 0.05); err != nil || got != want[n] {
					t.Errorf("n=%d: %+v, %v; want %+v", n, got, err, want[n])
				}
			}
		})
	}
	wg.Wait()
}
