package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchproc"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/ab"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/gate"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/runner"
)

// needGit skips a test that needs git and a checkout of this repository.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command")
	}
	if err := exec.Command("git", "rev-parse", "--verify", "--quiet", "HEAD").Run(); err != nil {
		t.Skip("not in a git checkout with a HEAD commit")
	}
}

// runErr runs a command line and returns stdout, stderr, the exit code
// and the error main would print.
func runErr(args ...string) (stdout, stderr string, code int, msg string) {
	var out, errOut strings.Builder
	err := run(&out, &errOut, args)
	if err != nil {
		msg = err.Error()
	}
	return out.String(), errOut.String(), exitCode(err), msg
}

func TestGateABUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gate", "-base", "HEAD", "-baseline", "x.txt"}, "takes neither -baseline nor a results file"},
		{[]string{"gate", "-base", "HEAD", "new.txt"}, "takes neither -baseline nor a results file"},
		{[]string{"gate", "-base", "HEAD", "-order", "ba"}, `-order "ba": want abba or ab`},
		{[]string{"gate", "-base", "HEAD", "-precision", "2%"}, "-precision needs a -budget"},
		{[]string{"gate", "-base", "HEAD", "-count", "0"}, "-count 0: want at least 1"},
		// Each flag out of range is named with its value, all of them.
		{[]string{"gate", "-base", "HEAD", "-sample", "0", "-discard", "-1"}, "-sample 0s: want a positive duration; -discard -1: want at least 0"},
		{[]string{"gate", "-base", "HEAD", "-budget", "-1s", "-respawn", "-2"}, "-budget -1s: want a duration of at least 0; -respawn -2: want at least 0"},
		{[]string{"run", "-count", "0", "-latency", "-1", "-watchdog", "0", "-budget", "-1s"},
			"-count 0: want at least 1; -latency -1: want at least 0; -watchdog 0s: want a positive duration; -budget -1s: want a duration of at least 0"},
		{[]string{"calibrate", "-trials", "0", "-samples", "5", "-family", "0", "-alpha", "0"},
			"-trials 0: want at least 1; -samples 5: want at least 6; -family 0: want at least 1; -alpha 0: want a level in (0, 1]"},
		{[]string{"calibrate", "-ab", "-trials", "0"}, "-trials 0: want at least 1"},
		{[]string{"gate", "-base", "HEAD", "-count", "5"}, "-count 5 with -discard 0 leaves 5 pairs; the paired test needs at least 6"},
		{[]string{"gate", "-base", "HEAD", "-count", "8", "-discard", "3"}, "leaves 5 pairs"},
		{[]string{"calibrate", "-ab", "-count", "2"}, "leaves 2 pairs"},
		{[]string{"gate", "-base", "HEAD", "-bench", "NoSuchBenchmark"}, "no benchmark matches"},
		{[]string{"gate"}, "gate needs -base or -baseline"},
		{[]string{"gate", "-base", "HEAD", "-alpha", "1"}, "-alpha 1: want a level in (0, 1) with -base"},
		{[]string{"gate", "-base", "HEAD", "-latency", "-1"}, "-latency -1: want at least 0"},
		{[]string{"gate", "-baseline", "no-such-file", "-alpha", "0", "no-such-file"}, "-alpha 0: want a level in (0, 1]"},
		{[]string{"compare", "-alpha", "2", "-confidence", "-1", "no-such-file"}, "-alpha 2: want a level in [0, 1]; -confidence -1: want a level in [0, 1]"},
		{[]string{"compare", "-format", "html", "no-such-file"}, `-format "html": want one of text, markdown, csv, json`},
		{[]string{"conform", "-watchdog", "0"}, "-watchdog 0s: want a positive duration"},
		{[]string{"conform", "-fuzz", "-1"}, "-fuzz -1: want at least 0"},
		// A flag of the mode not chosen is refused, each one named (in
		// name order), rather than ignored.
		{[]string{"gate", "-baseline", "no-such-file", "-latency", "0", "-count", "20", "-cpus", "0", "no-such-file"},
			"-count, -cpus and -latency apply only with -base"},
		{[]string{"calibrate", "-count", "20"}, "-count applies only with -ab"},
		{[]string{"run", "-budget", "1m", "-bench", "NoSuchBenchmark"}, "-budget applies only with -precision"},
		{[]string{"calibrate", "-tune=false", "-format", "json"}, "-format and -tune apply only with -ab"},
		{[]string{"calibrate", "-ab", "-samples", "8", "-family", "3"}, "-family and -samples apply only without -ab"},
		{[]string{"conform", "-fuzz", "1", "-run", "Foo"}, "-run applies only without -fuzz"},
		{[]string{"conform", "-seed", "2", "-shrink=false"}, "-seed and -shrink apply only with -fuzz"},
		{[]string{"conform", "-fuzz", "1", "-watchdog", "-1s"}, "-watchdog -1s: want a positive duration"},
		{[]string{"report", "-embed", "gif", "no-such-file"}, `-embed "gif": want svg or png`},
		// -warm NaN, +Inf or 1e300 would overflow the warm-up count sent
		// to the drivers (and fail late, as exit 1); the ref names no
		// commit, so that nothing is built or run should the check be
		// missing.
		{[]string{"gate", "-base", "no-such-ref-of-kcbench", "-warm", "NaN"}, "-warm NaN: want a fraction"},
		{[]string{"gate", "-base", "no-such-ref-of-kcbench", "-warm", "+Inf"}, "-warm +Inf: want a fraction"},
		{[]string{"gate", "-base", "no-such-ref-of-kcbench", "-warm", "1e300"}, "-warm 1e+300: want a fraction"},
		{[]string{"calibrate", "-ab", "-from-raw", "no-such-file", "-warm", "NaN"}, "-warm NaN: want a fraction"},
		// -filter is checked before the ref (which names no commit, so
		// that nothing is built or run should the check be missing).
		{[]string{"gate", "-base", "no-such-ref-of-kcbench", "-filter", "((("}, "parsing -filter"},
		{[]string{"gate", "-base", "no-such-ref-of-kcbench", "-bench", "^JobCreate/", "-filter", "/backend:no-such-backend"}, `-filter "/backend:no-such-backend" leaves no row`},
		{[]string{"calibrate", "-ab", "-alpha", "1"}, "-alpha 1: want a level in (0, 1)"},
		{[]string{"calibrate", "-ab", "-backend", "peer-go"}, "the peers do not use"},
		{[]string{"calibrate", "-ab", "-format", "xml"}, `-format "xml"`},
		// Blind calibrations, known before anything is built or run: 6
		// pairs cannot reach 0.05 over 2 rows, nor 6 values a side
		// 0.05/280. (The other flags keep the work small should the
		// check ever be missing.)
		{[]string{"calibrate", "-ab", "-bench", "^AwaitCached/", "-backend", "stealing,goroutine", "-count", "6",
			"-trials", "1", "-sample", "1ms", "-slowdowns", "none"}, "cannot detect a regression: 6 pairs a row reach at best p = 0.031"},
		{[]string{"calibrate", "-ab", "-bench", "^AwaitCached/", "-backend", "stealing,goroutine", "-count", "8", "-discard", "2",
			"-trials", "1", "-sample", "1ms", "-slowdowns", "none"}, "need >= 7 pairs a row: -count 9"},
		{[]string{"calibrate", "-samples", "6", "-family", "280", "-trials", "1", "-benchtime", "1x", "-slowdowns", "10%"}, "need >= 8 samples a side"},
	} {
		_, _, code, msg := runErr(tc.args...)
		if code != 2 || !strings.Contains(msg, tc.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 and %q", tc.args, code, msg, tc.want)
		}
	}
}

func TestGateABBadRef(t *testing.T) {
	needGit(t)
	_, _, code, msg := runErr("gate", "-base", "no-such-ref-of-kcbench", "-bench", "^AwaitCached/", "-backends", "goroutine")
	if code != 2 || !strings.Contains(msg, `bad git ref "no-such-ref-of-kcbench"`) {
		t.Errorf("exit %d, %q; want exit 2 naming the ref", code, msg)
	}
}

// machineLine matches the line that says how busy the machine was, which
// is measured on Linux only.
func machineLine() string {
	if runtime.GOOS != "linux" {
		return `(?m)^machine: other load not measured: cpuload: `
	}
	return `(?m)^machine: other processes used \d+\.\d\d of \d+ CPUs on average over \S+; steal \d+\.\d%`
}

// TestGateABRun gates the working tree against HEAD on one cheap row:
// two driver builds, six ABBA rounds of 1ms samples. The verdict of an
// A/A run is not asserted (a false alarm is possible, if rare); its
// shape is.
func TestGateABRun(t *testing.T) {
	needGit(t)
	out, errOut, code, msg := runErr("gate", "-base", "HEAD", "-bench", "^AwaitCached/", "-backends", "goroutine", "-count", "6", "-sample", "1ms")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s\n%s%s", code, msg, out, errOut)
	}
	for _, re := range []string{
		`(?m)^gate: HEAD \([0-9a-f]{12}\) \(base\) vs working tree \(head\), paired ABBA rounds of 1ms samples$`,
		`(?m)^AwaitCached/backend=goroutine\s+sec/op\s+\S+\s+\S+\s+\d+\.\d{3}\s+\[\d+\.\d{3}, \d+\.\d{3}\]\s+±\d+\.\d%\s+\S+\s+\S+\s+6\s+<= 150\.0n\s+(ok|improved|regressed|target-missed|regressed,target-missed)$`,
		`(?m)^(PASS: 1 rows|FAIL: 1 of 1 rows)$`,
		machineLine(),
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
	if !strings.Contains(errOut, "building the drivers: HEAD") || !strings.Contains(errOut, "done") {
		t.Errorf("progress:\n%s", errOut)
	}
}

// The latency samplers follow -bench and -backends as run's latency
// lines do, and their rows carry the names of those lines.
func TestLatencySamplers(t *testing.T) {
	for _, tc := range []struct {
		bench, backends string
		want            []string
	}{
		{"^JobCreate/", "stealing,peer-go", []string{"JobCreate/backend=stealing", "JobCreate/backend=peer-go"}},
		{".", "stealing", []string{"JobCreate/backend=stealing", "AwaitPending/backend=stealing"}},
		{"AwaitPending/backend=goroutine$", "", []string{"AwaitPending/backend=goroutine"}},
		{"^AwaitCached/", "stealing", nil},
	} {
		items, err := planRun(runFlags{bench: tc.bench, backends: tc.backends, count: 1, benchtime: "1x", watchdog: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := latencySamplers(items)
		if !slices.Equal(got, tc.want) {
			t.Errorf("-bench %q -backends %q: samplers %q; want %q", tc.bench, tc.backends, got, tc.want)
		}
		for i, l := range runner.LatencyPlan(items) {
			if name := ab.LatencyPrefix + got[i]; name != l.Name() {
				t.Errorf("row name %q; run's latency line is %q", name, l.Name())
			}
		}
	}
}

// fakeDriver writes a shell script that greets as a driver of protocol
// proto and answers a bench or latency request for a name matching the
// shell pattern known with one op of 1ns, any other with an error.
func fakeDriver(t *testing.T, proto int, known string) *ab.Driver {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake driver is a shell script")
	}
	path := filepath.Join(t.TempDir(), "driver")
	script := fmt.Sprintf(`#!/bin/sh
echo 'ready kcbench-abdriver/%d go0 procs=1 kcslow=off'
while read verb name rest; do
	case "$verb $name" in
	quit*) exit 0 ;;
	"bench "%[2]s) echo 'ok 1 1 0' ;;
	"latency "%[2]s) echo 'ok 1 1 p50-ns 1 p90-ns 1 p99-ns 1 p99.9-ns' ;;
	*) echo "err no $name here" ;;
	esac
done
`, proto, known)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := ab.Start(path, "base", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// commonRows leaves out, and names, the benchmarks and latency samplers
// the base build does not have; a base driver without the latency
// request is bad input that says how to gate without latency rows.
func TestCommonRows(t *testing.T) {
	rows := []string{"JobCreate/backend=goroutine", "AwaitCached/backend=goroutine"}
	latency := []string{"JobCreate/backend=goroutine", "AwaitPending/backend=goroutine"}
	head := fakeDriver(t, ab.Protocol, "*")
	var stderr strings.Builder
	kr, kl, err := commonRows([]*ab.Driver{fakeDriver(t, ab.Protocol, "JobCreate/*"), head}, rows, latency, &stderr)
	if err != nil || !slices.Equal(kr, rows[:1]) || !slices.Equal(kl, latency[:1]) ||
		stderr.String() != "not in the base build (not judged): AwaitCached/backend=goroutine, Latency/AwaitPending/backend=goroutine\n" {
		t.Errorf("kept %q and %q, err %v, stderr %q", kr, kl, err, stderr.String())
	}
	_, _, err = commonRows([]*ab.Driver{fakeDriver(t, 1, "*"), head}, rows, latency, &stderr)
	if !errors.Is(err, ab.ErrNoLatency) || exitCode(err) != 2 || !strings.Contains(err.Error(), "-latency 0") {
		t.Errorf("protocol 1 base: err = %v (exit %d); want ErrNoLatency, exit 2, naming -latency 0", err, exitCode(err))
	}
	_, _, err = commonRows([]*ab.Driver{fakeDriver(t, ab.Protocol, "none"), head}, rows, latency, &stderr)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "no selected benchmark runs on both builds") {
		t.Errorf("nothing in common: err = %v (exit %d)", err, exitCode(err))
	}
}

// TestGateABLatency gates one latency workload on one backend: its
// sec/op row and its four percentile rows, judged in one family, named
// as run's latency lines with the units results files tidy them to (8
// pairs: 6 cannot reach Holm's first step over 5 rows).
func TestGateABLatency(t *testing.T) {
	needGit(t)
	out, errOut, code, msg := runErr("gate", "-base", "HEAD", "-bench", "^AwaitPending/", "-backends", "goroutine",
		"-count", "8", "-sample", "1ms", "-latency", "200")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s\n%s%s", code, msg, out, errOut)
	}
	res := []string{
		`(?m)^5 rows, max regression 5%, alpha 0\.05 \(Holm over 5 rows\); ratio = head/base of each row's unit,`,
		`(?m)^AwaitPending/backend=goroutine\s+sec/op\s+.*\s8\s+(ok|improved|regressed)$`,
	}
	for _, u := range results.LatencyUnits {
		res = append(res, `(?m)^Latency/AwaitPending/backend=goroutine\s+`+regexp.QuoteMeta(u)+
			`\s+\S+\s+\S+\s+\d+\.\d{3}\s+\[\d+\.\d{3}, \d+\.\d{3}\]\s+±\d+\.\d%\s+\S+\s+\S+\s+8\s+(ok|improved|regressed)$`)
	}
	res = append(res, `(?m)^(PASS: 5 rows|FAIL: [1-5] of 5 rows)$`)
	for _, re := range res {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
}

// TestCalibrateAB runs one trial of calibrate -ab with a +50% kcslow
// build: it builds A, B, a counting probe and a slowed driver, and must
// report the lines it promises, with the injection counted.
func TestCalibrateAB(t *testing.T) {
	out, errOut, code, msg := runErr("calibrate", "-ab", "-bench", "^JobCreate/", "-backend", "goroutine",
		"-trials", "1", "-count", "6", "-sample", "1ms", "-slowdowns", "50%")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s\n%s%s", code, msg, out, errOut)
	}
	for _, re := range []string{
		`(?m)^row JobCreate/backend=goroutine: base \d+\.\d ns/op, [1-9]\d*\.\d\d injection calls/op, \d+\.\d\d ns a step, steps per call \[[1-9]\d*\]$`,
		`(?m)^A/A false alarms: [01] \((0\.0|100\.0)%\)$`,
		`(?m)^slowdown \+50%: detected [01] \((0\.0|100\.0)%\)$`,
		`(?m)^  JobCreate/backend=goroutine: detected [01] of 1 \(\S+\), measured ratio \d+\.\d{3} \(nominal 1\.500\)`,
		machineLine(),
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
	// -tune (the default) measured the slowdown build in a pilot first.
	if re := `(?m)^JobCreate/backend=goroutine \+50%: pilot 1: [1-9]\d* steps a call measured [+-]\d+\.\d%$`; !regexp.MustCompile(re).MatchString(errOut) {
		t.Errorf("progress does not match %s:\n%s", re, errOut)
	}
}

// A gate -base run whose first round shows it blind stops there: two or
// three rows that differ between the builds cannot get below Holm's 0.05/2
// with 6 pairs, so the gate exits 2 asking for -count 7, without a report.
// Three rows, because a row whose first pair happens to tie (the same
// printed ns/op in both builds) does not count: with two, one tie would
// leave a single row, which 6 pairs can judge, and the run would go on.
func TestGateABBlindStopsEarly(t *testing.T) {
	needGit(t)
	out, errOut, code, msg := runErr("gate", "-base", "HEAD", "-bench", "^AwaitCached/", "-backends", "goroutine,stealing,vcore",
		"-count", "6", "-sample", "1ms", "-latency", "0")
	early := regexp.MustCompile(`cannot detect a regression: after the first round [23] rows already differ`)
	if code != 2 || !early.MatchString(msg) || !strings.Contains(msg, "need >= 7 pairs a row: -count 7") {
		t.Fatalf("exit %d, %q; want exit 2 asking for -count 7\n%s%s", code, msg, out, errOut)
	}
	if out != "" || strings.Contains(errOut, "round 2") {
		t.Errorf("the run went on past its first round:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

// blindEarly hands the first pair of every row that -filter keeps to
// gate.ABBlindEarly.
func TestBlindEarly(t *testing.T) {
	rows := []*ab.RowResult{
		{Name: "A/backend=x", Unit: "ns/op", Ns: [][]float64{{100}, {110}}},
		{Name: "B/backend=x", Unit: "ns/op", Ns: [][]float64{{100}, {90}}},
		{Name: "C/backend=x", Unit: "ns/op", Ns: [][]float64{{100}, {100}}},
		{Name: "Latency/A/backend=x", Unit: "p50-ns", Ns: [][]float64{{100}, {90}}},
		{Name: "Latency/A/backend=x", Unit: "p90-ns", Ns: [][]float64{{200}, {190}}},
	}
	all, err := benchproc.NewFilter("*")
	if err != nil {
		t.Fatal(err)
	}
	if err := blindEarly(all, 6, 0.05, 1)(rows); !errors.Is(err, gate.ErrBlind) || !strings.Contains(err.Error(), "4 rows already differ") || !strings.Contains(err.Error(), "-count 9") {
		t.Errorf("blindEarly = %v; want ErrBlind over 4 rows, -count 9", err)
	}
	if err := blindEarly(all, 7, 0.05, 1)(rows); !errors.Is(err, gate.ErrBlind) {
		t.Errorf("7 pairs, 4 rows: %v; want ErrBlind", err)
	}
	secs, err := benchproc.NewFilter(".unit:sec/op")
	if err != nil {
		t.Fatal(err)
	}
	if err := blindEarly(secs, 7, 0.05, 1)(rows); err != nil {
		t.Errorf("7 pairs, 2 rows once -filter .unit:sec/op leaves out the latency row: %v", err)
	}
}

// -filter keeps the A/B rows it matches by name and unit, as it keeps
// the values of a results file.
func TestABMatch(t *testing.T) {
	for _, tc := range []struct {
		query, name, unit string
		want              bool
	}{
		{"*", "JobCreate/backend=stealing", "sec/op", true},
		{".unit:sec/op", "JobCreate/backend=stealing", "sec/op", true},
		{".unit:sec/op", "Latency/JobCreate/backend=stealing", "p99-sec", false},
		{"/backend:stealing", "JobCreate/backend=stealing", "sec/op", true},
		{"/backend:stealing", "JobCreate/backend=goroutine", "sec/op", false},
		{".name:JobCreate", "JobCreate/backend=goroutine", "sec/op", true},
		{".name:Latency .unit:p99-sec", "Latency/JobCreate/backend=stealing", "p99-sec", true},
		{"-.name:FanOut", "FanOut/backend=stealing/n=10", "sec/op", false},
	} {
		f, err := benchproc.NewFilter(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		if got := abMatch(f, tc.name, tc.unit); got != tc.want {
			t.Errorf("-filter %q on %s %s: %v; want %v", tc.query, tc.name, tc.unit, got, tc.want)
		}
	}
}

// The gate's inputs take the base build's values (side 0) as Base and the
// working tree's (side 1) as Head, in the tidied unit (ns/op becomes
// sec/op, p99-ns p99-sec), and leave out what -filter drops.
func TestABInputs(t *testing.T) {
	rows := []*ab.RowResult{
		{Name: "JobCreate/backend=stealing", Unit: "ns/op", Ns: [][]float64{{100, 110}, {200, 220}}},
		{Name: ab.LatencyPrefix + "JobCreate/backend=stealing", Unit: "p99-ns", Ns: [][]float64{{1000}, {3000}}},
	}
	f, err := benchproc.NewFilter(".unit:sec/op")
	if err != nil {
		t.Fatal(err)
	}
	near := func(got, want []float64) bool {
		return slices.EqualFunc(got, want, func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*b })
	}
	in := abInputs(f, rows)
	if len(in) != 1 || in[0].Unit != "sec/op" || !near(in[0].Base, []float64{100e-9, 110e-9}) || !near(in[0].Head, []float64{200e-9, 220e-9}) {
		t.Errorf("inputs %+v; want the sec/op row only, base 100 and 110 ns, head 200 and 220 ns", in)
	}
	all, _ := benchproc.NewFilter("*")
	if in := abInputs(all, rows); len(in) != 2 || in[1].Unit != "p99-sec" || !near(in[1].Base, []float64{1000e-9}) || !near(in[1].Head, []float64{3000e-9}) {
		t.Errorf("inputs %+v; want the latency row too, base 1000 ns, head 3000 ns", in)
	}
}

// gate -base measures only what -filter keeps: a benchmark by its sec/op
// row, a latency sampler by any of its percentile rows.
func TestABPlanFilter(t *testing.T) {
	for _, tc := range []struct {
		query         string
		rows, latency []string
	}{
		{"*", []string{"AwaitPending/backend=goroutine"}, []string{"AwaitPending/backend=goroutine"}},
		{".unit:sec/op", []string{"AwaitPending/backend=goroutine"}, nil},
		{".unit:p99-sec", nil, []string{"AwaitPending/backend=goroutine"}},
		{"/backend:stealing", nil, nil},
	} {
		f, err := benchproc.NewFilter(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		rows, latency, err := abGate{bench: "^AwaitPending/", backends: "goroutine", latency: 100, filter: f, filterQuery: tc.query}.plan()
		if tc.rows == nil && tc.latency == nil {
			if exitCode(err) != 2 || !strings.Contains(fmt.Sprint(err), "leaves no row") {
				t.Errorf("-filter %q: %v; want a usage error", tc.query, err)
			}
			continue
		}
		if err != nil || !slices.Equal(rows, tc.rows) || !slices.Equal(latency, tc.latency) {
			t.Errorf("-filter %q: %q, %q, %v; want %q, %q", tc.query, rows, latency, err, tc.rows, tc.latency)
		}
	}
}
