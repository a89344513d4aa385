package main

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// benchFile writes a results file in dir with count samples of each
// benchmark (name -> median in ns/op) and returns its path. extra is
// appended verbatim.
func benchFile(t *testing.T, dir, name string, seed uint64, count int, benches map[string]float64, extra string) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\n")
	for _, bench := range slices.Sorted(maps.Keys(benches)) {
		for range count {
			fmt.Fprintf(&b, "Benchmark%s-2 1000000 %.2f ns/op 16 B/op 1 allocs/op\n",
				bench, benches[bench]*(1+0.01*rng.NormFloat64()))
		}
	}
	b.WriteString(extra)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// good are medians that meet every spec target.
var good = map[string]float64{
	"JobCreate/backend=stealing":   300,
	"JobCreate/backend=peer-go":    480, // peers are exempt
	"AwaitCached/backend=stealing": 90,
	"FanOut/backend=stealing/n=10": 5000,
}

// with returns a copy of m with key set to v.
func with(m map[string]float64, key string, v float64) map[string]float64 {
	c := maps.Clone(m)
	c[key] = v
	return c
}

func TestGateExitCodes(t *testing.T) {
	dir := t.TempDir()
	base := benchFile(t, dir, "base.txt", 1, 10, good, "")
	rates := "Unit ops/s better=higher\n" + strings.Repeat("BenchmarkThroughput-2 1 1000 ops/s\n", 10)
	baseRates := benchFile(t, dir, "base-rates.txt", 1, 10, good, rates)
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("goos: linux\nPASS\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"clean", []string{"-baseline", base, benchFile(t, dir, "clean.txt", 2, 10, good, "")}, 0,
			[]string{"PASS", "JobCreate/backend=stealing-2"}},
		{"regression", []string{"-baseline", base, benchFile(t, dir, "slow.txt", 3, 10, with(good, "FanOut/backend=stealing/n=10", 6000), "")}, 1,
			[]string{"FAIL FanOut/backend=stealing/n=10-2 sec/op: regressed"}},
		{"regression under threshold", []string{"-baseline", base, "-max-regress", "25%", benchFile(t, dir, "slow2.txt", 3, 10, with(good, "FanOut/backend=stealing/n=10", 6000), "")}, 0,
			[]string{"PASS"}},
		{"improvement", []string{"-baseline", base, benchFile(t, dir, "fast.txt", 4, 10, with(good, "FanOut/backend=stealing/n=10", 4000), "")}, 0,
			[]string{"improved"}},
		{"target missed", []string{"-baseline", base, benchFile(t, dir, "miss.txt", 5, 10, with(good, "AwaitCached/backend=vcore", 160), "")}, 1,
			[]string{"FAIL AwaitCached/backend=vcore-2 sec/op: target-missed"}},
		{"higher is better", []string{"-baseline", baseRates, benchFile(t, dir, "rates.txt", 1, 10, good,
			"Unit ops/s better=higher\n"+strings.Repeat("BenchmarkThroughput-2 1 800 ops/s\n", 10))}, 1,
			[]string{"FAIL Throughput-2 ops/s: regressed"}},
		{"too few samples", []string{"-baseline", base, benchFile(t, dir, "few.txt", 6, 5, good, "")}, 2,
			[]string{"too-few-samples", "JobCreate/backend=stealing-2"}},
		{"empty file", []string{"-baseline", base, empty}, 2, nil},
		{"unreadable", []string{"-baseline", filepath.Join(dir, "missing.txt"), base}, 2, nil},
		{"no common", []string{"-baseline", base, benchFile(t, dir, "other.txt", 7, 10, map[string]float64{"Other": 1}, "")}, 2, nil},
		{"bad max-regress", []string{"-baseline", base, "-max-regress", "five", base}, 2, nil},
		{"bad alpha", []string{"-baseline", base, "-alpha", "0", base}, 2, nil},
		{"no baseline", []string{base}, 2, nil},
		{"two files", []string{"-baseline", base, base, base}, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append([]string{"gate"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			for _, s := range tc.contains {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
		})
	}
}

func TestGateTooFewNamesRow(t *testing.T) {
	dir := t.TempDir()
	few := benchFile(t, dir, "few.txt", 2, 10, good, strings.Repeat("BenchmarkFanOut/backend=vcore/n=10-2 1 5000 ns/op\n", 3))
	baseFew := benchFile(t, dir, "basefew.txt", 1, 10, good, strings.Repeat("BenchmarkFanOut/backend=vcore/n=10-2 1 5000 ns/op\n", 10))
	var out, errOut strings.Builder
	err := run(&out, &errOut, []string{"gate", "-baseline", baseFew, few})
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "FanOut/backend=vcore/n=10-2 sec/op") {
		t.Fatalf("err = %v (exit %d), want exit 2 naming the row", err, exitCode(err))
	}
}

// A regression found wins over a row that could not be judged: the gate
// exits 1 and its message names both.
func TestGateRegressionWinsOverUndecided(t *testing.T) {
	dir := t.TempDir()
	few := strings.Repeat("BenchmarkFanOut/backend=vcore/n=10-2 1 5000 ns/op\n", 3)
	base := benchFile(t, dir, "base.txt", 1, 10, good, strings.Repeat("BenchmarkFanOut/backend=vcore/n=10-2 1 5000 ns/op\n", 10))
	cur := benchFile(t, dir, "cur.txt", 3, 10, with(good, "FanOut/backend=stealing/n=10", 6000), few)
	out, _, code, msg := runErr("gate", "-baseline", base, cur)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s\n%s", code, msg, out)
	}
	for _, s := range []string{"gate failed: 1 row(s): FanOut/backend=stealing/n=10-2 sec/op", "too few samples", "FanOut/backend=vcore/n=10-2 sec/op"} {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q lacks %q", msg, s)
		}
	}
	if !strings.Contains(out, "FAIL FanOut/backend=vcore/n=10-2 sec/op: too-few-samples") {
		t.Errorf("the undecided row is not in the report:\n%s", out)
	}
}

// A stored-baseline gate whose rows cannot be significant does not pass:
// 6 against 6 values reach at best p = 0.0022, above Holm's first step
// over 25 rows, so even a row that doubled is blind, and the gate exits
// 2 saying how many values a side would decide.
func TestGateBlindExitsTwo(t *testing.T) {
	dir := t.TempDir()
	benches := map[string]float64{}
	for k := range 25 {
		benches[fmt.Sprintf("ChanPingPong/backend=b%02d", k)] = 1000
	}
	base := benchFile(t, dir, "base.txt", 1, 6, benches, "")
	cur := benchFile(t, dir, "cur.txt", 2, 6, with(benches, "ChanPingPong/backend=b00", 2000), "")
	out, _, code, msg := runErr("gate", "-baseline", base, cur)
	if code != 2 {
		t.Fatalf("exit %d, want 2: %s\n%s", code, msg, out)
	}
	for _, s := range []string{"cannot detect a regression", "need >= 7 a side", "ChanPingPong/backend=b00-2 sec/op"} {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q lacks %q", msg, s)
		}
	}
	if !strings.Contains(out, "FAIL ChanPingPong/backend=b00-2 sec/op: blind: 6+6 values reach at best p = 0.0022") {
		t.Errorf("report:\n%s", out)
	}
	// 7 values a side decide: the doubling regresses.
	base = benchFile(t, dir, "base7.txt", 1, 7, benches, "")
	cur = benchFile(t, dir, "cur7.txt", 2, 7, with(benches, "ChanPingPong/backend=b00", 2000), "")
	if out, _, code, msg := runErr("gate", "-baseline", base, cur); code != 1 || !strings.Contains(out, "FAIL ChanPingPong/backend=b00-2 sec/op: regressed") {
		t.Errorf("7 a side: exit %d (%s)\n%s", code, msg, out)
	}
}

// A baseline row missing from the current results fails the gate with
// exit 2, naming it and -filter; rows that -filter leaves out of both
// files are not missing.
func TestGateMissingRows(t *testing.T) {
	dir := t.TempDir()
	base := benchFile(t, dir, "base.txt", 1, 10, good, "")
	partial := maps.Clone(good)
	delete(partial, "FanOut/backend=stealing/n=10")
	cur := benchFile(t, dir, "cur.txt", 2, 10, partial, "")
	out, _, code, msg := runErr("gate", "-baseline", base, cur)
	if code != 2 || !strings.Contains(msg, "baseline rows missing from the current results") ||
		!strings.Contains(msg, "FanOut/backend=stealing/n=10-2 sec/op") || !strings.Contains(msg, "-filter") {
		t.Fatalf("exit %d, %q; want exit 2 naming the missing rows and -filter\n%s", code, msg, out)
	}
	if out, _, code, msg := runErr("gate", "-baseline", base, "-filter", "-.name:FanOut", cur); code != 0 {
		t.Errorf("-filter leaving FanOut out: exit %d, %s\n%s", code, msg, out)
	}
}
