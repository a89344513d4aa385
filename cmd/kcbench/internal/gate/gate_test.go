package gate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

func TestParsePercent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"5%", 0.05, true}, {"2.5%", 0.025, true}, {" 0% ", 0, true}, {"150%", 1.5, true},
		{"5", 0, false}, {"", 0, false}, {"%", 0, false}, {"-1%", 0, false},
		{"abc%", 0, false}, {"NaN%", 0, false}, {"Inf%", 0, false},
	} {
		got, err := ParsePercent(tc.in)
		if tc.ok != (err == nil) || (tc.ok && math.Abs(got-tc.want) > 1e-12) {
			t.Errorf("ParsePercent(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadPercent) {
			t.Errorf("ParsePercent(%q) error %v does not wrap ErrBadPercent", tc.in, err)
		}
	}
}

// spread returns n values around center with 1% noise.
func spread(rng *rand.Rand, center float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = center * (1 + 0.01*rng.NormFloat64())
	}
	return v
}

func TestCompareAndDecide(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := spread(rng, 100, 10)
	slower := spread(rng, 120, 10)

	lower := Compare(base, slower, -1)
	if lower.Worse < 0.15 || lower.P > 0.001 {
		t.Fatalf("lower-is-better +20%%: %+v", lower)
	}
	if v := Decide(lower, lower.P, 0.05, 0.05); v != Regressed {
		t.Errorf("+20%% sec/op: %v, want regressed", v)
	}
	if v := Decide(lower, lower.P, 0.05, 0.25); v != OK {
		t.Errorf("+20%% under a 25%% threshold: %v, want ok", v)
	}
	if v := Decide(lower, 0.2, 0.05, 0.05); v != OK {
		t.Errorf("+20%% not significant: %v, want ok", v)
	}
	higher := Compare(base, slower, +1)
	if v := Decide(higher, higher.P, 0.05, 0.05); v != Improved {
		t.Errorf("+20%% ops/s: %v, want improved", v)
	}
	zero := Compare([]float64{0, 0, 0, 0, 0, 0}, []float64{1, 1, 1, 1, 1, 1}, -1)
	if !math.IsInf(zero.Change, 1) || Decide(zero, zero.P, 0.05, 0.05) != Regressed {
		t.Errorf("0 -> 1 allocs/op: %+v", zero)
	}
}

// TestDecideBoundaries pins Decide's thresholds at equality: an adjusted
// p-value of exactly alpha is significant, and a change of exactly
// maxRegress is not worse (or better) by more than it.
func TestDecideBoundaries(t *testing.T) {
	for _, tc := range []struct {
		worse, pAdj float64
		want        Verdict
	}{
		{0.10, 0.05, Regressed}, // p at alpha: significant
		{0.10, 0.0501, OK},      // p above alpha
		{0.05, 0.01, OK},        // worse by exactly maxRegress
		{-0.05, 0.01, OK},       // better by exactly maxRegress
		{-0.10, 0.05, Improved},
	} {
		if v := Decide(Comparison{Worse: tc.worse}, tc.pAdj, 0.05, 0.05); v != tc.want {
			t.Errorf("worse %+.2f, adjusted p %v (alpha 0.05, max regress 5%%): %v; want %v", tc.worse, tc.pAdj, v, tc.want)
		}
	}
}

// A compared row that is not significant but misses its spec target is
// target-missed, not "ok" as well; a row with too few values on the
// baseline side is too-few-samples, as on the current side.
func TestJudgeTargetAndFewBaseline(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	base := writeSet(t, lines(rng, "AwaitCached/backend=vcore-2", 170, 10)+
		lines(rng, "JobCreate/backend=stealing-2", 300, MinSamples-1))
	cur := writeSet(t, lines(rng, "AwaitCached/backend=vcore-2", 170, 10)+
		lines(rng, "JobCreate/backend=stealing-2", 300, 10))
	rep, err := Judge(base, cur, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	got := verdictsByName(rep)
	want := map[string]string{
		"AwaitCached/backend=vcore-2":  "[target-missed]",
		"JobCreate/backend=stealing-2": "[too-few-samples]",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
}

// verdictsByName returns the verdicts of rep's rows, printed, by name.
func verdictsByName(rep *Report) map[string]string {
	got := map[string]string{}
	for _, r := range rep.Rows {
		got[r.Name] = fmt.Sprint(r.Verdicts)
	}
	return got
}

// writeSet writes lines to a temporary results file and loads it.
func writeSet(t *testing.T, lines string) *results.Set {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.txt")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := results.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// lines returns n benchmark lines for name at about ns ns/op.
func lines(rng *rand.Rand, name string, ns float64, n int) string {
	var b strings.Builder
	for _, v := range spread(rng, ns, n) {
		fmt.Fprintf(&b, "Benchmark%s 1000 %.2f ns/op\n", name, v)
	}
	return b.String()
}

func TestJudge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	base := writeSet(t, lines(rng, "JobCreate/backend=stealing-2", 300, 10)+
		lines(rng, "AwaitCached/backend=stealing-2", 90, 10)+
		lines(rng, "Gone/backend=stealing-2", 90, 10))
	cur := writeSet(t, lines(rng, "JobCreate/backend=stealing-2", 360, 10)+
		lines(rng, "AwaitCached/backend=stealing-2", 91, 10)+
		lines(rng, "AwaitCached/backend=vcore-2", 170, 10)+
		lines(rng, "AwaitCached/backend=peer-go-2", 170, 10))
	rep, err := Judge(base, cur, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	got := verdictsByName(rep)
	want := map[string]string{
		"JobCreate/backend=stealing-2":   "[regressed]",
		"AwaitCached/backend=stealing-2": "[ok]",
		"AwaitCached/backend=vcore-2":    "[target-missed]",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	if rep.Comparisons != 2 {
		t.Errorf("Comparisons = %d, want 2", rep.Comparisons)
	}
	if fmt.Sprint(rep.OnlyBaseline) != "[Gone/backend=stealing-2 sec/op]" ||
		fmt.Sprint(rep.OnlyCurrent) != "[AwaitCached/backend=peer-go-2 sec/op]" {
		t.Errorf("only baseline %v, only current %v", rep.OnlyBaseline, rep.OnlyCurrent)
	}
	if err := rep.Err(); !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "AwaitCached/backend=vcore-2") ||
		!errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "Gone/backend=stealing-2 sec/op") {
		t.Errorf("Err() = %v", err)
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"FAIL JobCreate/backend=stealing-2 sec/op: regressed", "FAIL AwaitCached/backend=vcore-2 sec/op: target-missed",
		"FAIL Gone/backend=stealing-2 sec/op: missing", "FAIL: 3 of 4 rows"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}

	if _, err := Judge(base, writeSet(t, lines(rng, "Other-2", 1, 10)), DefaultOptions); !errors.Is(err, ErrNoCommon) {
		t.Errorf("no common benchmarks: err = %v", err)
	}
}

// TestJudgeHolm checks that the correction covers every comparison:
// 6 against 6 fully separated values give p = 0.0022, significant on
// its own but not among 30 comparisons (0.0022*30 > 0.05). Such a run
// cannot see any row regress (0.0022 > 0.05/30 is the best any row can
// do): every row is blind and the gate fails with ErrBlind, saying that
// 7 values a side would do; with 7 the row that got 1.5x slower
// regresses.
func TestJudgeHolm(t *testing.T) {
	judge := func(n int) *Report {
		rng := rand.New(rand.NewPCG(7, 8))
		var base, cur strings.Builder
		for i := range 30 {
			name := fmt.Sprintf("W%d/backend=stealing-2", i)
			base.WriteString(lines(rng, name, 1000, n))
			f := 1.0
			if i == 0 {
				f = 1.5
			}
			cur.WriteString(lines(rng, name, 1000*f, n))
		}
		rep, err := Judge(writeSet(t, base.String()), writeSet(t, cur.String()), DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := judge(6)
	r := rep.Rows[0]
	if r.Comparison.P > 0.05 || r.PAdj <= 0.05 || r.Verdicts[0] != Blind || !r.Failing() || !math.IsInf(r.MDE, 1) {
		t.Errorf("row 0: p=%v padj=%v verdicts=%v mde=%v; want raw p <= 0.05, adjusted > 0.05, a failing blind, mde +Inf", r.Comparison.P, r.PAdj, r.Verdicts, r.MDE)
	}
	for _, r := range rep.Rows {
		if r.Verdicts[0] != Blind {
			t.Errorf("%s: %v; want blind", r.Name, r.Verdicts)
		}
	}
	if err := rep.Err(); !errors.Is(err, ErrBlind) || errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "need >= 7 a side") {
		t.Errorf("Err() = %v; want ErrBlind asking for 7 values a side", err)
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if want := "FAIL W0/backend=stealing-2 sec/op: blind: 6+6 values reach at best p = 0.0022, above Holm's level 0.05/30 = 0.0017; need >= 7 a side"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
	rep = judge(7)
	for _, r := range rep.Rows {
		if want := map[bool]Verdict{true: Regressed, false: OK}[r.Name == "W0/backend=stealing-2"]; r.Verdicts[0] != want {
			t.Errorf("7 a side, %s: %v; want %v", r.Name, r.Verdicts, want)
		}
	}
}

// The smallest p-value of the U test is that of two samples entirely
// apart, 2/C(n1+n2, n1): 0.0022 for 6 against 6, as benchmath's table
// has it; SamplesFor inverts it.
func TestMinPU(t *testing.T) {
	for _, tc := range []struct {
		n1, n2 int
		want   float64
	}{{6, 6, 2.0 / 924}, {7, 7, 2.0 / 3432}, {6, 10, 2.0 / 8008}, {10, 6, 2.0 / 8008}, {0, 6, 1}} {
		if got := MinPU(tc.n1, tc.n2); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("MinPU(%d, %d) = %v; want %v", tc.n1, tc.n2, got, tc.want)
		}
	}
	for _, tc := range []struct {
		level float64
		want  int
	}{{0.05, 6}, {0.05 / 23, 6}, {0.05 / 24, 7}, {0.05 / 280, 8}, {0, 0}} {
		if got := SamplesFor(tc.level); got != tc.want {
			t.Errorf("SamplesFor(%v) = %d; want %d", tc.level, got, tc.want)
		}
	}
}

// The gate's verdicts print as the gate table's words, paired's shared
// ones as paired prints them, and fail from Regressed on.
func TestVerdictString(t *testing.T) {
	for v, want := range map[Verdict]string{
		OK: "ok", Improved: "improved", Regressed: "regressed",
		TargetMissed: "target-missed", TooFewSamples: "too-few-samples", Blind: "blind", 7: "Verdict(7)", -1: "Verdict(-1)",
	} {
		if got := v.String(); got != want {
			t.Errorf("Verdict(%d).String() = %q, want %q", int(v), got, want)
		}
		if got, want := v.Failing(), v == Regressed || v == TargetMissed || v == TooFewSamples || v == Blind || v == 7; got != want {
			t.Errorf("%v.Failing() = %v, want %v", v, got, want)
		}
	}
	for _, pv := range []paired.Verdict{paired.OK, paired.Improved, paired.Regressed} {
		if got, want := Verdict(pv).String(), pv.String(); got != want {
			t.Errorf("gate's %v prints %q, paired's %q", pv, got, want)
		}
	}
}

// TestJudgeConstantRows checks that rows constant on both sides (B/op of
// unchanged code) stay out of the Holm family: among 1 varying and 29
// constant rows, 6 against 6 separated values (p = 0.0022) regress,
// which they would not among 30 comparisons (0.0022*30 > 0.05).
func TestJudgeConstantRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	base := lines(rng, "W/backend=stealing-2", 1000, 6)
	cur := lines(rng, "W/backend=stealing-2", 1500, 6)
	for i := range 29 {
		for range 6 {
			line := fmt.Sprintf("BenchmarkC%d/backend=stealing-2 1000 100 ns/op\n", i)
			base += line
			cur += line
		}
	}
	rep, err := Judge(writeSet(t, base), writeSet(t, cur), DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Comparisons != 1 {
		t.Errorf("Comparisons = %d, want 1 (the constant rows left out)", rep.Comparisons)
	}
	for _, r := range rep.Rows {
		want, wantP := OK, 1.0
		if r.Name == "W/backend=stealing-2" {
			want, wantP = Regressed, r.Comparison.P
		}
		if r.Verdicts[0] != want || r.PAdj != wantP {
			t.Errorf("%s: p(holm) %v, verdicts %v; want %v, %v", r.Name, r.PAdj, r.Verdicts, wantP, want)
		}
	}
}

// A baseline row the current results lack is not judged, so the gate
// cannot pass: here JobCreate's current values were written in us/op (a
// unit benchfmt does not tidy to sec/op, like a crashed or dropped
// benchmark), which hid a 33% regression and a missed target. Rows only
// in the current results are new and only reported.
func TestJudgeMissingRows(t *testing.T) {
	var base, cur strings.Builder
	for i := range 10 {
		fmt.Fprintf(&base, "BenchmarkJobCreate/backend=stealing-2 1000 %d ns/op\n", 300+i)
		fmt.Fprintf(&base, "BenchmarkAwaitCached/backend=stealing-2 1000 %d ns/op\n", 100+i)
		fmt.Fprintf(&cur, "BenchmarkJobCreate/backend=stealing-2 1000 %g us/op\n", 0.400+float64(i)/1000)
		fmt.Fprintf(&cur, "BenchmarkAwaitCached/backend=stealing-2 1000 %d ns/op\n", 100+i)
		fmt.Fprintf(&cur, "BenchmarkNew/backend=stealing-2 1000 %d ns/op\n", 100+i)
	}
	rep, err := Judge(writeSet(t, base.String()), writeSet(t, cur.String()), DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	err = rep.Err()
	if !errors.Is(err, ErrMissing) || errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "JobCreate/backend=stealing-2 sec/op") ||
		!strings.Contains(err.Error(), "-filter") || strings.Contains(err.Error(), "New/") {
		t.Errorf("Err() = %v; want ErrMissing naming JobCreate's sec/op and -filter, not the new row", err)
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"FAIL JobCreate/backend=stealing-2 sec/op: missing: in the baseline, not in the current results",
		"not in the baseline (not judged): JobCreate/backend=stealing-2 us/op, New/backend=stealing-2 sec/op", "FAIL: 1 of 2 rows"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
}
