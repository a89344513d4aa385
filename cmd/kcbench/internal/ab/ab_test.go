package ab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
)

// buildOnce builds the plain driver of the working tree once per test
// binary: building is the slow part (seconds), running is milliseconds.
var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

func plainDriver(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kcbench-abtest-")
		if err != nil {
			buildErr = err
			return
		}
		mod, err := ModuleRoot(".")
		if err != nil {
			buildErr = err
			return
		}
		buildDir = dir
		builtPath = filepath.Join(dir, "driver")
		buildErr = Build(context.Background(), BuildSpec{Dir: mod, Label: "working tree"}, builtPath)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtPath
}

func startTwo(t *testing.T) (a, b *Driver) {
	t.Helper()
	path := plainDriver(t)
	a, err := Start(path, "A", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	b, err = Start(path, "B", []string{"GOGC=100"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return a, b
}

// TestRunPairs runs a tiny A/A comparison of two driver processes and
// checks its shape: every row has one pair per kept round, the op count
// is fixed, and the progress callback saw every round.
func TestRunPairs(t *testing.T) {
	a, b := startTwo(t)
	if !strings.HasPrefix(a.Info, fmt.Sprintf("kcbench-abdriver/%d ", Protocol)) || a.Proto != Protocol || !strings.HasSuffix(a.Info, "kcslow=off") {
		t.Errorf("Info = %q", a.Info)
	}
	var rounds []int
	res, err := Run(context.Background(), Config{
		Rows:       []string{"AwaitCached/backend=goroutine", "JobCreate/backend=peer-go"},
		Sides:      []*Driver{a, b},
		Rounds:     8,
		Discard:    1,
		SampleTime: time.Millisecond,
		Warm:       0.1,
		Progress:   func(p Progress) { rounds = append(rounds, p.Round) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rounds != 8 || len(rounds) != 8 || rounds[7] != 8 {
		t.Errorf("rounds %d, progress calls %v; want 8", res.Rounds, rounds)
	}
	for _, r := range res.Rows {
		if r.Ops < 1 || len(r.Ns[0]) != 7 || len(r.Ns[1]) != 7 {
			t.Errorf("%s: ops %d, %d and %d samples; want 7 a side", r.Name, r.Ops, len(r.Ns[0]), len(r.Ns[1]))
		}
		for i, p := range r.Pairs(1) {
			if !(p.A > 0 && p.B > 0) {
				t.Errorf("%s: pair %d = %+v", r.Name, i, p)
			}
		}
	}
}

// TestRunPrecisionBudget checks that an unreachable precision makes the
// rows keep running until the budget is spent, and not much longer, and
// that the latency rows keep the pairs of the first rounds.
func TestRunPrecisionBudget(t *testing.T) {
	a, b := startTwo(t)
	var last Progress
	// A watchdog: a run that ignored its budget would never end.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := Run(ctx, Config{
		Rows: []string{"AwaitCached/backend=goroutine"}, Sides: []*Driver{a, b},
		Latency: []string{"AwaitPending/backend=goroutine"}, LatencySamples: 50,
		Rounds: 6, SampleTime: time.Millisecond, Precision: 1e-9, Budget: 2 * time.Second,
		Progress: func(p Progress) { last = p },
	})
	if err != nil {
		t.Fatalf("%v (a 2s budget)", err)
	}
	if res.Rounds <= 6 {
		t.Errorf("ran %d rounds; an unreachable precision should add rounds until the budget", res.Rounds)
	}
	if len(last.Converging) != 0 {
		t.Errorf("after the budget, rows still converging: %v", last.Converging)
	}
	if res.Elapsed > 30*time.Second {
		t.Errorf("a 2s budget ran %v", res.Elapsed)
	}
	if len(res.Rows) != 5 {
		t.Fatalf("%d rows; want a benchmark and 4 percentiles", len(res.Rows))
	}
	for _, r := range res.Rows[1:] {
		if len(r.Ns[0]) != 6 {
			t.Errorf("%s %s: %d pairs; want the 6 of the first rounds", r.Name, r.Unit, len(r.Ns[0]))
		}
	}
}

func TestDriverErrors(t *testing.T) {
	a, _ := startTwo(t)
	if _, err := a.Bench("NoSuchWorkload/backend=stealing", "1x", 0); err == nil || !strings.Contains(err.Error(), "NoSuchWorkload") {
		t.Errorf("unknown workload: err = %v", err)
	}
	if _, err := a.Bench("JobCreate/backend=nope", "1x", 0); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown backend: err = %v", err)
	}
	if _, err := a.Bench("JobCreate", "1x", 0); err == nil || !strings.Contains(err.Error(), "bad benchmark name") {
		t.Errorf("bad name: err = %v", err)
	}
	// The driver survives bad requests.
	if s, err := a.Bench("AwaitCached/backend=goroutine", "10x", 0); err != nil || s.N != 10 {
		t.Errorf("after errors: %+v, %v", s, err)
	}
	if _, err := Run(context.Background(), Config{Rows: []string{"x"}, Sides: []*Driver{a}, Rounds: 8, SampleTime: time.Millisecond}); !errors.Is(err, ErrConfig) {
		t.Errorf("one side: err = %v", err)
	}
}

func TestWorktreeBadRef(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	mod, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := git(context.Background(), mod, "rev-parse", "--show-toplevel"); err != nil {
		t.Skip("not in a git checkout")
	}
	for _, ref := range []string{"no-such-ref-kcbench", "-x", ""} {
		if _, err := AddWorktree(context.Background(), mod, ref); !errors.Is(err, ErrBadRef) {
			t.Errorf("AddWorktree(%q): err = %v; want ErrBadRef", ref, err)
		}
	}
	w, err := AddWorktree(context.Background(), mod, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Remove(); err != nil {
		t.Error(err)
	}
}

// TestStartOnCPUs starts a driver on CPU 0 only: on linux its Go runtime
// must then see one CPU; elsewhere the request is refused.
func TestStartOnCPUs(t *testing.T) {
	path := plainDriver(t)
	d, err := StartOn(path, "pinned", nil, []int{0})
	if runtime.GOOS != "linux" {
		if !errors.Is(err, ErrAffinity) {
			t.Fatalf("StartOn on %s: err = %v; want ErrAffinity", runtime.GOOS, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !strings.Contains(d.Info, " procs=1 ") {
		t.Errorf("Info = %q; want procs=1", d.Info)
	}
	if err := d.Restart(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Info, " procs=1 ") {
		t.Errorf("after Restart, Info = %q; want procs=1", d.Info)
	}
}

// A tree without package perf cannot build the driver: a *BuildError
// that names the side and carries the go command's message.
func TestBuildWithoutPerf(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/old\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Build(context.Background(), BuildSpec{Dir: dir, Label: "base old"}, filepath.Join(dir, "driver"))
	var be *BuildError
	if !errors.Is(err, ErrBuild) || !errors.As(err, &be) || be.Label != "base old" ||
		!strings.Contains(err.Error(), "github.com/kcbench/kcbench/perf") {
		t.Errorf("err = %v; want a *BuildError naming the missing perf package", err)
	}
}

// TestKcslowBuilds builds the two kinds of kcslow driver: a counting
// probe must see JobCreate pass at least one injection point per op, and
// a build with 65536 steps a call must take at least 20µs an op (the
// steps are a dependent chain of about 1.5 ns each: the bound is five
// times looser than that on the fastest machine, and a plain JobCreate
// costs about 1µs).
func TestKcslowBuilds(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	mod, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const row = "JobCreate/backend=goroutine"
	probe := filepath.Join(dir, "probe")
	if err := Build(context.Background(), BuildSpec{Dir: mod, Kcslow: true, Count: true}, probe); err != nil {
		t.Fatal(err)
	}
	d, err := Start(probe, "probe", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !strings.HasSuffix(d.Info, "kcslow=count") {
		t.Errorf("probe Info = %q", d.Info)
	}
	s, err := d.Bench(row, "200x", 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Calls < 1 {
		t.Errorf("probe: %v injection calls per op; want >= 1 (Launch)", s.Calls)
	}
	slow := filepath.Join(dir, "slow")
	if err := Build(context.Background(), BuildSpec{Dir: mod, Kcslow: true, Steps: 1 << 16}, slow); err != nil {
		t.Fatal(err)
	}
	ds, err := Start(slow, "slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if !strings.HasSuffix(ds.Info, "kcslow=65536") {
		t.Errorf("slow Info = %q", ds.Info)
	}
	s, err = ds.Bench(row, "50x", 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.NsPerOp < 20000 {
		t.Errorf("65536 steps a call: %.0f ns/op; want >= 20000", s.NsPerOp)
	}
}

// A cancelled context stops Run before its next sample.
func TestRunCancelled(t *testing.T) {
	a, b := startTwo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Config{Rows: []string{"AwaitCached/backend=goroutine"}, Sides: []*Driver{a, b}, Rounds: 6, SampleTime: time.Millisecond})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want context.Canceled", err)
	}
}

// fakeDrivers starts two drivers of a shell script that answers every
// bench request with an op count of 1000 and a cost that grows by one
// nanosecond per request from 100, plus FAKE_OFFSET (0 for the first
// driver, 1 for the second, so that the pairs differ).
func fakeDrivers(t *testing.T) []*Driver { return fakeDriversOffset(t, 1) }

// benchDriver writes a driver script that greets, answers each bench
// request by running the shell command bench (with $name set; $i starts
// at 100) and refuses every other request, and returns its path.
func benchDriver(t *testing.T, bench string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake driver is a shell script")
	}
	path := filepath.Join(t.TempDir(), "driver")
	script := fmt.Sprintf(`#!/bin/sh
echo 'ready kcbench-abdriver/%d go0 procs=1 kcslow=off'
i=100
while read verb name rest; do
	case "$verb" in
	quit) exit 0 ;;
	bench) %s ;;
	*) echo "err no $name here" ;;
	esac
done
`, Protocol, bench)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeDriversOffset is fakeDrivers with FAKE_OFFSET off for the second
// driver.
func fakeDriversOffset(t *testing.T, off int) []*Driver {
	t.Helper()
	path := benchDriver(t, `i=$((i+1)); echo "ok 1000 $((i+FAKE_OFFSET)) 0"`)
	var ds []*Driver
	for i, label := range []string{"A", "B"} {
		d, err := Start(path, label, []string{fmt.Sprintf("FAKE_OFFSET=%d", i*off)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		ds = append(ds, d)
	}
	return ds
}

// FirstRound sees every row once, after the first kept round, with one
// value a side; its error stops the run there.
func TestRunFirstRound(t *testing.T) {
	rows := []string{"X/backend=a", "Y/backend=a"}
	var calls, rounds int
	stop := errors.New("stop")
	_, err := Run(context.Background(), Config{Rows: rows, Sides: fakeDrivers(t), Rounds: 8, Discard: 2, SampleTime: time.Millisecond, Respawn: 0,
		Progress: func(p Progress) { rounds = p.Round },
		FirstRound: func(got []*RowResult) error {
			calls++
			if len(got) != 2 || got[0].Name != rows[0] || got[1].Name != rows[1] {
				t.Errorf("FirstRound rows %v; want %q", got, rows)
			}
			for _, r := range got {
				if len(r.Ns[0]) != 1 || len(r.Ns[1]) != 1 || r.Ns[0][0] == r.Ns[1][0] {
					t.Errorf("%s: values %v; want one a side, differing", r.Name, r.Ns)
				}
			}
			return stop
		}})
	if !errors.Is(err, stop) || calls != 1 || rounds != 2 {
		t.Errorf("err %v, %d calls, %d rounds reported; want the hook's error after 1 call, in round 3 (the first kept)", err, calls, rounds)
	}
	calls = 0
	res, err := Run(context.Background(), Config{Rows: rows, Sides: fakeDrivers(t), Rounds: 8, Discard: 2, SampleTime: time.Millisecond,
		FirstRound: func([]*RowResult) error { calls++; return nil }})
	if err != nil || calls != 1 || len(res.Rows[0].Ns[0]) != 6 {
		t.Errorf("err %v, %d calls, %d pairs; want nil, 1 call, 6 pairs", err, calls, len(res.Rows[0].Ns[0]))
	}
}

// Every sample lands on the side that took it, and Respawn restarts both
// drivers after every Respawn-th round: the fake drivers' costs, B's
// offset by 1000, start again from 101 in each fresh process.
func TestRunSidesAndRespawn(t *testing.T) {
	res, err := Run(context.Background(), Config{Rows: []string{"X/backend=a"}, Sides: fakeDriversOffset(t, 1000),
		Rounds: 6, SampleTime: time.Millisecond, FixedTime: true, Respawn: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{101, 102, 101, 102, 101, 102}, {1101, 1102, 1101, 1102, 1101, 1102}}
	if got := res.Rows[0].Ns; !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) {
		t.Errorf("samples by side %v; want %v (A's, then B's, each process restarted after rounds 2 and 4)", got, want)
	}
	if p := res.Rows[0].Pairs(1); len(p) != 6 || p[0] != (paired.Pair{A: 101, B: 1101}) || p[5] != (paired.Pair{A: 102, B: 1102}) {
		t.Errorf("Pairs(1) = %v; want side 0's values as A and side 1's as B, round by round", p)
	}
}

// A warm-up fraction that is not finite, or so large that the warm-up op
// count would overflow, is an invalid config, refused before any sample.
func TestRunBadWarm(t *testing.T) {
	for _, w := range []float64{math.NaN(), math.Inf(1), 1e300, MaxWarm + 1, -1} {
		_, err := Run(context.Background(), Config{Rows: []string{"X/backend=a"}, Sides: []*Driver{nil, nil}, Rounds: 6, SampleTime: time.Millisecond, Warm: w})
		if !errors.Is(err, ErrConfig) {
			t.Errorf("Warm %v: %v; want ErrConfig", w, err)
		}
	}
}

// TestWorktreeChanged checks that Changed lists the files of a directory
// that differ from the worktree's commit: changed since, committed or not,
// and new ones git does not ignore; and nothing outside the directory.
func TestWorktreeChanged(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	repo := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		if _, err := git(ctx, repo, append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q")
	write("go.mod", "module m\n")
	write("perf/a.go", "package perf\n")
	write("perf/skip.log", "x\n")
	write(".gitignore", "*.log\n")
	write("other.go", "package m\n")
	run("add", ".")
	run("commit", "-q", "-m", "base")
	w, err := AddWorktree(ctx, repo, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Remove()
	check := func(want ...string) {
		t.Helper()
		got, err := w.Changed(ctx, repo, "perf")
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Changed = %q, %v; want %q", got, err, want)
		}
	}
	check()
	write("other.go", "package m // changed\n")
	check()
	write("perf/a.go", "package perf // changed\n")
	check("perf/a.go")
	run("commit", "-q", "-am", "head")
	write("perf/b.go", "package perf\n")
	write("perf/skip2.log", "x\n")
	check("perf/a.go", "perf/b.go")
}
