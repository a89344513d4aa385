package gate

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// pairs returns n base values around ns (with a slow drift that both
// sides share, as on a drifting machine) and head values ratio times
// them with 2% independent noise.
func pairs(rng *rand.Rand, ns, ratio float64, n int) (base, head []float64) {
	for i := range n {
		drift := 1 + 0.5*float64(i%7)/7 // up to 1.5x, shared by the pair
		base = append(base, ns*1e-9*drift*(1+0.02*rng.NormFloat64()))
		head = append(head, ns*1e-9*drift*ratio*(1+0.02*rng.NormFloat64()))
	}
	return base, head
}

func TestJudgeABGolden(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var in []ABInput
	for _, c := range []struct {
		name  string
		ns, r float64
		n     int
	}{
		{"JobCreate/backend=stealing", 300, 1.00, 40},
		{"ChanPingPong/backend=stealing", 700, 1.15, 40},
		{"AwaitCached/backend=vcore", 160, 1.00, 40},
		{"FanOut/backend=stealing/n=10", 5000, 0.80, 40},
		{"Select/backend=stealing", 500, 1.00, 3},
	} {
		b, h := pairs(rng, c.ns, c.r, c.n)
		in = append(in, ABInput{Name: c.name, Base: b, Head: h})
	}
	rep := JudgeAB(in, ABRun{Base: "main (0123456789ab)", Head: "working tree", Sample: "10ms", Order: "ABBA", Elapsed: time.Minute}, DefaultOptions)
	want := map[string]string{
		"JobCreate/backend=stealing":    "[ok]",
		"ChanPingPong/backend=stealing": "[regressed]",
		"AwaitCached/backend=vcore":     "[target-missed]",
		"FanOut/backend=stealing/n=10":  "[improved]",
		"Select/backend=stealing":       "[too-few-samples]",
	}
	for _, r := range rep.Rows {
		if got := fmtVerdicts(r.Verdicts); got != want[r.Name] {
			t.Errorf("%s: verdicts %v, want %s", r.Name, r.Verdicts, want[r.Name])
		}
	}
	// The regression and the missed target win over the row that could
	// not be judged, which is still named.
	if err := rep.Err(); !errors.Is(err, ErrFailed) || !errors.Is(err, ErrTooFewSamples) ||
		!strings.Contains(err.Error(), "ChanPingPong") || !strings.Contains(err.Error(), "Select/backend=stealing") {
		t.Errorf("Err() = %v; want ErrFailed naming ChanPingPong, and ErrTooFewSamples naming Select", err)
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	goldenFile(t, "ab.golden", out.String())

	// Without the row that has too few pairs, the failures are what Err
	// reports.
	rep = JudgeAB(in[:4], ABRun{Base: "main", Head: "working tree", Sample: "10ms", Order: "ABBA"}, DefaultOptions)
	if err := rep.Err(); !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "ChanPingPong") || !strings.Contains(err.Error(), "AwaitCached/backend=vcore") {
		t.Errorf("Err() = %v; want ErrFailed naming ChanPingPong and AwaitCached/backend=vcore", err)
	}
}

func fmtVerdicts(vs []Verdict) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}

// goldenFile compares got with testdata/name, or rewrites it under -update.
func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update to rewrite):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// An A/B row's name parses as in a results file: backend, size and the
// spec target (none for a peer or a latency line).
func TestSeriesOf(t *testing.T) {
	for _, tc := range []struct {
		name, workload, backend, n string
		target                     bool
	}{
		{"JobCreate/backend=stealing", "JobCreate", "stealing", "", true},
		{"JobCreate/backend=peer-go", "JobCreate", "peer-go", "", false},
		{"FanOut/backend=vcore/n=10", "FanOut", "vcore", "10", false},
		{"Latency/AwaitCached/backend=stealing", "AwaitCached", "stealing", "", false},
	} {
		s := seriesOf(tc.name, results.SecPerOp)
		_, target := results.TargetFor(s)
		if s.Workload != tc.workload || s.Backend != tc.backend || s.N != tc.n || target != tc.target {
			t.Errorf("seriesOf(%q) = %+v, target %v; want %s, %s, n %q, target %v", tc.name, s.ID, target, tc.workload, tc.backend, tc.n, tc.target)
		}
	}
}

// Latency rows are judged like sec/op rows, in their own unit (higher is
// worse), in one Holm family with them, and have no spec target.
func TestJudgeABLatencyGolden(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var in []ABInput
	for _, c := range []struct {
		name, unit string
		ns, r      float64
	}{
		{"JobCreate/backend=stealing", "", 300, 1.00},
		{"Latency/JobCreate/backend=stealing", "p50-sec", 600, 1.00},
		{"Latency/JobCreate/backend=stealing", "p90-sec", 900, 0.80},
		{"Latency/JobCreate/backend=stealing", "p99-sec", 2000, 1.20},
		{"Latency/JobCreate/backend=stealing", "p99.9-sec", 9000, 1.00},
	} {
		b, h := pairs(rng, c.ns, c.r, 30)
		in = append(in, ABInput{Name: c.name, Unit: c.unit, Base: b, Head: h})
	}
	rep := JudgeAB(in, ABRun{Base: "main (0123456789ab)", Head: "working tree", Sample: "30ms", Order: "ABBA", Elapsed: time.Minute}, DefaultOptions)
	want := []string{"sec/op [ok]", "p50-sec [ok]", "p90-sec [improved]", "p99-sec [regressed]", "p99.9-sec [ok]"}
	for i, r := range rep.Rows {
		if got := r.Unit + " " + fmtVerdicts(r.Verdicts); got != want[i] || r.HasTarget != (i == 0) || !r.Judged.InFamily {
			t.Errorf("row %d: %s, target %v, in family %v; want %s, a target only on sec/op, in the family", i, got, r.HasTarget, r.Judged.InFamily, want[i])
		}
	}
	if err := rep.Err(); !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "Latency/JobCreate/backend=stealing p99-sec") {
		t.Errorf("Err() = %v; want ErrFailed naming the p99-sec row", err)
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	goldenFile(t, "ab-latency.golden", out.String())
}

// An A/B run of 20 rows of 8 pairs cannot see a regression: 8 pairs
// reach at best p = 2/2^8 = 0.0078, above Holm's first step 0.05/20.
// Every row, the one that doubled included, is blind, and the report
// fails with ErrBlind, naming the pairs and the -count (with -discard's
// rounds) that would decide; a blind row that also misses its target
// fails on the target. With 10 pairs the doubling regresses.
func TestJudgeABBlind(t *testing.T) {
	judge := func(n, discard int, target bool) *ABReport {
		rng := rand.New(rand.NewPCG(1, 2))
		var in []ABInput
		for k := range 20 {
			ratio := 1.0
			if k == 0 {
				ratio = 2.0
			}
			b, h := pairs(rng, 1000, ratio, n)
			name := fmt.Sprintf("ChanPingPong/backend=b%02d", k)
			if target && k == 1 {
				name = "AwaitCached/backend=stealing" // 1000ns: over its 150ns target
			}
			in = append(in, ABInput{Name: name, Base: b, Head: h})
		}
		return JudgeAB(in, ABRun{Base: "main", Head: "working tree", Sample: "10ms", Order: "ABBA", Discard: discard}, DefaultOptions)
	}
	rep := judge(8, 0, false)
	for _, r := range rep.Rows {
		if fmtVerdicts(r.Verdicts) != "[blind]" || !math.IsInf(r.Judged.Est.MDE, 1) {
			t.Errorf("%s: %v, mde %v; want blind, +Inf", r.Name, r.Verdicts, r.Judged.Est.MDE)
		}
	}
	err := rep.Err()
	if !errors.Is(err, ErrBlind) || errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "Holm's level 0.05/20 = 0.0025; need >= 10 pairs a row: -count 10)") {
		t.Errorf("Err() = %v; want ErrBlind asking for 10 pairs", err)
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"FAIL ChanPingPong/backend=b00 sec/op: blind: 8 pairs reach at best p = 0.0078, above Holm's level 0.05/20 = 0.0025; need >= 10 pairs", "FAIL: 20 of 20 rows"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
	if err := judge(8, 3, false).Err(); !strings.Contains(fmt.Sprint(err), "need >= 10 pairs a row: -count 13") {
		t.Errorf("with -discard 3: Err() = %v; want -count 13", err)
	}
	rep = judge(8, 0, true)
	if got := fmtVerdicts(rep.Rows[1].Verdicts); got != "[blind target-missed]" {
		t.Errorf("blind row over its target: %s", got)
	}
	if err := rep.Err(); !errors.Is(err, ErrFailed) || !errors.Is(err, ErrBlind) {
		t.Errorf("Err() = %v; want ErrFailed (the target) and ErrBlind", err)
	}
	rep = judge(10, 0, false)
	if got := fmtVerdicts(rep.Rows[0].Verdicts); got != "[regressed]" {
		t.Errorf("10 pairs: doubled row %s; want regressed", got)
	}
	if err := rep.Err(); !errors.Is(err, ErrFailed) || errors.Is(err, ErrBlind) {
		t.Errorf("10 pairs: Err() = %v; want ErrFailed only", err)
	}
}

// The first kept round of an A/B run shows a blind run when the rows
// that already differ are too many for the pairs every row will get:
// 6 pairs reach at best 0.031, above 0.05/5; rows whose first pair is
// equal, or not positive, do not count (they may leave the family).
// The spec target is checked on the head's median alone, and not on a
// row with too few pairs; a side with a pair more than the other is
// judged on the pairs both have.
func TestJudgeABTargets(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	in := func(name string, base, head float64, nb, nh int) ABInput {
		b, _ := pairs(rng, base, 1, nb)
		h, _ := pairs(rng, head, 1, nh)
		return ABInput{Name: name, Base: b, Head: h}
	}
	rep := JudgeAB([]ABInput{
		in("JobCreate/backend=stealing", 600, 300, 20, 20),   // the base missed the target: fixed
		in("JobCreate/backend=vcore", 300, 600, 20, 20),      // the head misses it: regressed too
		in("JobCreate/backend=goroutine", 600, 600, 3, 3),    // too few pairs to judge anything
		in("AwaitCached/backend=stealing", 100, 100, 21, 20), // one base value more
	}, ABRun{}, DefaultOptions)
	want := []string{"[improved]", "[regressed target-missed]", "[too-few-samples]", "[ok]"}
	for i, r := range rep.Rows {
		if got := fmtVerdicts(r.Verdicts); got != want[i] {
			t.Errorf("%s (base median %.3g, head %.3g): verdicts %s; want %s", r.Name, r.BaseCenter, r.CurCenter, got, want[i])
		}
	}
	if n := rep.Rows[3].Judged.Est.N; n != 20 {
		t.Errorf("21 base values, 20 head: %d pairs judged; want 20", n)
	}
}

func TestABBlindEarly(t *testing.T) {
	differ, equal, zero := paired.Pair{A: 1, B: 1.1}, paired.Pair{A: 1, B: 1}, paired.Pair{A: 0, B: 1}
	five := slices.Repeat([]paired.Pair{differ}, 5)
	err := ABBlindEarly(five, 6, 0.05, 0)
	if !errors.Is(err, ErrBlind) || !strings.Contains(fmt.Sprint(err), "5 rows already differ") || !strings.Contains(fmt.Sprint(err), "need >= 8 pairs a row: -count 8") {
		t.Errorf("5 rows, 6 pairs: %v; want ErrBlind asking for 8 pairs", err)
	}
	if err := ABBlindEarly(five, 6, 0.05, 2); !strings.Contains(fmt.Sprint(err), "-count 10") {
		t.Errorf("with 2 discarded rounds: %v; want -count 10", err)
	}
	// At the boundary: 6 pairs reach p = MinP(6), which a lone row's level
	// MinP(6) admits.
	if err := ABBlindEarly([]paired.Pair{differ}, 6, paired.MinP(6), 0); err != nil {
		t.Errorf("one row, 6 pairs, alpha = MinP(6): %v; want nil (MinP <= alpha)", err)
	}
	for _, tc := range []struct {
		first []paired.Pair
		n     int
	}{
		{five, 8},
		{[]paired.Pair{differ, equal, equal, equal, equal}, 6},
		{[]paired.Pair{differ, zero, zero, zero, zero}, 6},
		{nil, 6},
	} {
		if err := ABBlindEarly(tc.first, tc.n, 0.05, 0); err != nil {
			t.Errorf("%v, %d pairs: %v; want nil", tc.first, tc.n, err)
		}
	}
}
