package paired

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestHolm(t *testing.T) {
	for _, tc := range []struct{ ps, want []float64 }{
		{nil, []float64{}},
		{[]float64{0.01}, []float64{0.01}},
		// Sorted 0.01, 0.02, 0.04: 3·0.01, max(0.03, 2·0.02), max(0.04, 0.04).
		{[]float64{0.04, 0.01, 0.02}, []float64{0.04, 0.03, 0.04}},
		// The running maximum keeps the adjusted values monotone, and
		// they are capped at 1.
		{[]float64{0.5, 0.001, 0.9, 0.3}, []float64{1, 0.004, 1, 0.9}},
		// Sorted: 0.005·4, 0.01·3, 0.03·2, 0.04·1 -> running max 0.06.
		{[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{[]float64{0.9, 0.8}, []float64{1, 1}},
	} {
		got := Holm(tc.ps)
		if !slices.EqualFunc(got, tc.want, func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }) {
			t.Errorf("Holm(%v) = %v; want %v", tc.ps, got, tc.want)
		}
	}
}

func TestHolmTarone(t *testing.T) {
	// 0.5 and 1 cannot reject: the family is 0.04, 0.01, 0.02 (Holm as above).
	ps := []float64{0.04, 1, 0.01, 0.5, 0.02}
	adj, m := HolmTarone(ps, func(i int) bool { return i == 1 || i == 3 })
	want := []float64{0.04, 1, 0.03, 1, 0.04}
	if m != 3 || !slices.EqualFunc(adj, want, func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }) {
		t.Errorf("HolmTarone = %v, %d; want %v, 3", adj, m, want)
	}
	if adj, m := HolmTarone(ps, func(int) bool { return false }); m != 5 || !slices.Equal(adj, Holm(ps)) {
		t.Errorf("HolmTarone with no hypothesis left out = %v, %d; want Holm's %v, 5", adj, m, Holm(ps))
	}
	if adj, m := HolmTarone(ps, func(int) bool { return true }); m != 0 || slices.ContainsFunc(adj, func(a float64) bool { return a != 1 }) {
		t.Errorf("HolmTarone with every hypothesis left out = %v, %d; want all 1, 0", adj, m)
	}
}

// slower returns n pairs whose B is A times ratio times a small
// deterministic wobble (so that the ranks have no ties).
func slower(n int, ratio float64) []Pair {
	out := make([]Pair, n)
	for i := range out {
		wobble := 1 + 0.01*math.Sin(float64(3*i+1))
		a := 1e-6 * (1 + 0.5*math.Cos(float64(i)))
		out[i] = Pair{A: a, B: a * ratio * wobble}
	}
	return out
}

func TestJudgeVerdicts(t *testing.T) {
	rows := []Row{
		{Name: "same", Unit: "sec/op", Pairs: slower(20, 1)},
		{Name: "slower", Unit: "sec/op", Pairs: slower(20, 1.10)},
		{Name: "faster", Unit: "sec/op", Pairs: slower(20, 0.90)},
		{Name: "slightly-slower", Unit: "sec/op", Pairs: slower(20, 1.03)},
		{Name: "rate-down", Unit: "ops/s", HigherIsBetter: true, Pairs: slower(20, 0.90)},
		{Name: "rate-up", Unit: "ops/s", HigherIsBetter: true, Pairs: slower(20, 1.10)},
		{Name: "short", Unit: "sec/op", Pairs: slower(5, 2)},
		{Name: "zero-allocs", Unit: "allocs/op", Pairs: slices.Repeat([]Pair{{0, 0}}, 20)},
		{Name: "new-alloc", Unit: "allocs/op", Pairs: append(slices.Repeat([]Pair{{0, 0}}, 19), Pair{0, 1})},
	}
	want := []Verdict{OK, Regressed, Improved, OK, Regressed, Improved, TooFew, OK, Invalid}
	got := Judge(rows, Options{Alpha: 0.05, MaxRegress: 0.05})
	for i, j := range got {
		if j.Row.Name != rows[i].Name || j.Verdict != want[i] {
			t.Errorf("%s: verdict %v (adj p %.3g, ratio %.4f, err %v); want %v", rows[i].Name, j.Verdict, j.AdjP, j.Est.Ratio, j.Err, want[i])
		}
	}
	if !errors.Is(got[6].Err, ErrTooFew) || !errors.Is(got[8].Err, ErrNonPositive) {
		t.Errorf("errors: short %v, new-alloc %v; want ErrTooFew, ErrNonPositive", got[6].Err, got[8].Err)
	}
	// slightly-slower is significant but within MaxRegress; with no
	// tolerance it regresses.
	if j := Judge(rows[3:4], Options{MaxRegress: 0})[0]; j.Verdict != Regressed {
		t.Errorf("slightly-slower, max regress 0: %v; want regressed", j.Verdict)
	}
	// Holm over the 6 judged rows that vary (zero-allocs cannot
	// reject and is left out): the strictest level is 0.05/6.
	inFamily := 0
	for _, j := range got {
		if j.InFamily {
			inFamily++
		}
	}
	if inFamily != 6 {
		t.Errorf("%d rows InFamily; want 6", inFamily)
	}
	for _, j := range got {
		if j.Verdict == TooFew || j.Verdict == Invalid {
			if j.AdjP != 1 || !math.IsInf(j.Detectable, 1) {
				t.Errorf("%s: adj p %v, detectable %v; want 1, +Inf", j.Row.Name, j.AdjP, j.Detectable)
			}
			continue
		}
		if want := mde(j.Est.SE, j.Est.N, 0.05/6, 0); j.Est.MDE != want {
			t.Errorf("%s: MDE %v; want %v (at 0.05/6)", j.Row.Name, j.Est.MDE, want)
		}
		if j.Detectable < 0.05 || j.Detectable < j.Est.MDE {
			t.Errorf("%s: detectable %v below max regress or MDE %v", j.Row.Name, j.Detectable, j.Est.MDE)
		}
	}
}

// TestJudgeTarone checks that rows that cannot reject do not make the
// others stricter: one varying row among 100 all-equal ones is judged as
// if alone.
func TestJudgeTarone(t *testing.T) {
	rows := []Row{{Name: "x", Pairs: slower(8, 1.10)}}
	alone := Judge(rows, DefaultOptions)[0]
	for range 100 {
		rows = append(rows, Row{Name: "allocs", Pairs: slices.Repeat([]Pair{{3, 3}}, 8)})
	}
	j := Judge(rows, DefaultOptions)
	if j[0].AdjP != alone.AdjP || j[0].Verdict != Regressed || j[0].Est.MDE != alone.Est.MDE {
		t.Errorf("among 100 constant rows: adj p %v, %v, MDE %v; alone: %v, %v, MDE %v",
			j[0].AdjP, j[0].Verdict, j[0].Est.MDE, alone.AdjP, alone.Verdict, alone.Est.MDE)
	}
	if j[1].AdjP != 1 || j[1].Verdict != OK {
		t.Errorf("constant row: adj p %v, %v; want 1, ok", j[1].AdjP, j[1].Verdict)
	}
}

func TestJudgeOptions(t *testing.T) {
	rows := []Row{{Name: "x", Pairs: slower(10, 1)}}
	for _, o := range []Options{{Alpha: 1}, {Alpha: -0.1}, {Confidence: 1.5}, {MaxRegress: -0.01}, {MaxRegress: math.NaN()}} {
		j := Judge(rows, o)[0]
		if j.Verdict != Invalid || !errors.Is(j.Err, ErrOptions) || !j.Verdict.Failing() {
			t.Errorf("options %+v: verdict %v, err %v; want a failing invalid with ErrOptions", o, j.Verdict, j.Err)
		}
	}
	if err := (Options{}).Check(); err != nil {
		t.Errorf("zero Options: %v; want the defaults", err)
	}
	if got := Judge(nil, DefaultOptions); len(got) != 0 {
		t.Errorf("no rows: %v", got)
	}
}

func TestVerdictString(t *testing.T) {
	for v, want := range map[Verdict]string{OK: "ok", Improved: "improved", Regressed: "regressed", TooFew: "too-few-pairs", Invalid: "invalid", Blind: "blind", 9: "Verdict(9)"} {
		if v.String() != want {
			t.Errorf("%d: %q; want %q", int(v), v.String(), want)
		}
		if fail := v == Regressed || v == TooFew || v == Invalid || v == Blind; v.Failing() != fail && v != 9 {
			t.Errorf("%v.Failing() = %v", v, v.Failing())
		}
	}
}

// A row whose pairs cannot reach Holm's first-step level alpha/m (m: the
// family Holm runs over) is Blind, not OK: 8 pairs reach at best
// p = 2/2^8 = 0.0078, above 0.05/20, so among 20 such rows even a row
// that doubled on every pair cannot be significant. The family is
// Tarone's: constant rows do not count, so the same 8 pairs among 19
// constant rows are judged at 0.05 and the doubling regresses. 10 pairs
// (p >= 0.00195 <= 0.05/20) are enough for 20 rows.
func TestJudgeBlind(t *testing.T) {
	rowsOf := func(n, varying int) []Row {
		var rows []Row
		for k := range 20 {
			ratio := 1.0
			if k == 0 {
				ratio = 2
			}
			ps := slower(n, ratio)
			if k >= varying {
				ps = slices.Repeat([]Pair{{3, 3}}, n)
			}
			rows = append(rows, Row{Name: fmt.Sprint("row", k), Pairs: ps})
		}
		return rows
	}
	for i, j := range Judge(rowsOf(8, 20), DefaultOptions) {
		if j.Verdict != Blind || !j.Verdict.Failing() || !errors.Is(j.Err, ErrBlind) || !math.IsInf(j.Est.MDE, 1) {
			t.Errorf("row %d of 20 with 8 pairs: %v (err %v, MDE %v); want a failing blind, ErrBlind, MDE +Inf", i, j.Verdict, j.Err, j.Est.MDE)
		}
		if i == 0 && (j.Err == nil || !strings.Contains(j.Err.Error(), "8 pairs reach at best p = 0.0078") || !strings.Contains(j.Err.Error(), "need >= 10 pairs")) {
			t.Errorf("blind row's reason: %v", j.Err)
		}
	}
	for i, j := range Judge(rowsOf(8, 1), DefaultOptions) {
		if want := map[bool]Verdict{true: Regressed, false: OK}[i == 0]; j.Verdict != want {
			t.Errorf("8 pairs, row %d among 19 constant rows: %v (err %v); want %v", i, j.Verdict, j.Err, want)
		}
	}
	for i, j := range Judge(rowsOf(10, 20), DefaultOptions) {
		if want := map[bool]Verdict{true: Regressed, false: OK}[i == 0]; j.Verdict != want {
			t.Errorf("10 pairs, row %d of 20: %v (err %v); want %v", i, j.Verdict, j.Err, want)
		}
	}
	// A row blind at Holm's first step but rejected at a later one,
	// after the others, was decided: 6 pairs (p = 0.031 > 0.05/2) next to
	// a row that regressed clearly.
	j := Judge([]Row{{Name: "long", Pairs: slower(30, 2)}, {Name: "short", Pairs: slower(6, 2)}}, DefaultOptions)
	if j[0].Verdict != Regressed || j[1].Verdict != Regressed {
		t.Errorf("step-down: %v, %v; want regressed, regressed", j[0].Verdict, j[1].Verdict)
	}
}

// PairsFor is the docs' n >= 1 + log2(m/alpha): 10 pairs for 18 rows, 14
// for 280 at alpha 0.05, and never fewer than MinPairs.
func TestPairsFor(t *testing.T) {
	for _, tc := range []struct {
		level float64
		want  int
	}{{0.05 / 18, 10}, {0.05 / 280, 14}, {0.05 / 20, 10}, {0.05, MinPairs}, {0.9, MinPairs}, {0, 0}, {-1, 0}} {
		if got := PairsFor(tc.level); got != tc.want {
			t.Errorf("PairsFor(%v) = %d; want %d", tc.level, got, tc.want)
		}
		if n := PairsFor(tc.level); n > 0 && (MinP(n) > tc.level || n > MinPairs && MinP(n-1) <= tc.level) {
			t.Errorf("PairsFor(%v) = %d is not the fewest pairs reaching it", tc.level, n)
		}
	}
}

// TestJudgeBoundaries pins Regressed's two thresholds at equality:
// significant means a Holm-adjusted p at most Alpha, and a regression
// must be worse by more than MaxRegress.
func TestJudgeBoundaries(t *testing.T) {
	// Six pairs, all slower and with distinct ratios: the exact two-sided
	// p-value is 2/2^6, the smallest there is, and alone in its family
	// the row is judged at exactly that level.
	var six []Pair
	for i := range 6 {
		six = append(six, Pair{A: 1, B: 2 + float64(i)/10})
	}
	alpha := MinP(6)
	if j := Judge([]Row{{Name: "at-alpha", Pairs: six}}, Options{Alpha: alpha})[0]; j.AdjP != alpha || j.Verdict != Regressed {
		t.Errorf("adj p %v at alpha %v: verdict %v; want Regressed (p <= alpha is significant)", j.AdjP, alpha, j.Verdict)
	}
	// Twenty pairs exactly twice as slow: the ratio is exactly 2, a
	// worsening of exactly MaxRegress 100%, which is not more than it.
	twice := slices.Repeat([]Pair{{A: 1, B: 2}}, 20)
	j := Judge([]Row{{Name: "at-limit", Pairs: twice}}, Options{Alpha: 0.05, MaxRegress: 1})[0]
	if j.Est.Ratio != 2 || j.AdjP > 0.05 || j.Verdict != OK {
		t.Errorf("ratio %v (adj p %v) with max regress 100%%: verdict %v; want OK (ratio exactly 2, significant, not worse by more)", j.Est.Ratio, j.AdjP, j.Verdict)
	}
}
