package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

func TestParseBenchtime(t *testing.T) {
	for s, ok := range map[string]bool{"1x": true, "100x": true, "10ms": true, "1s": true,
		"0x": false, "-1x": false, "0s": false, "-1s": false, "fast": false, "1.5x": false, "": false, "x": false} {
		if err := ParseBenchtime(s); (err == nil) != ok {
			t.Errorf("ParseBenchtime(%q) = %v, want ok=%v", s, err, ok)
		} else if err != nil && !errors.Is(err, ErrBenchtime) {
			t.Errorf("ParseBenchtime(%q) = %v, not ErrBenchtime", s, err)
		}
	}
}

func TestMeasure(t *testing.T) {
	calls := 0
	m, err := Measure(func(b *testing.B) {
		b.ReportAllocs()
		calls++
		for range b.N {
			_ = make([]byte, 64)
		}
		b.ReportMetric(7, "widgets/op")
	}, "5x")
	if err != nil {
		t.Fatal(err)
	}
	if m.N != 5 || calls != 2 { // run1 with N=1, then N=5
		t.Errorf("N = %d after %d calls, want 5 after 2", m.N, calls)
	}
	if m.NsPerOp <= 0 || m.Extra["widgets/op"] != 7 {
		t.Errorf("measurement %+v", m)
	}
	if _, err := Measure(func(b *testing.B) { b.Fatal("broken") }, "1x"); !errors.Is(err, ErrBenchFailed) {
		t.Errorf("failing benchmark: err = %v, want ErrBenchFailed", err)
	}
	if _, err := Measure(func(*testing.B) {}, "soon"); !errors.Is(err, ErrBenchtime) {
		t.Errorf("bad benchtime: err = %v, want ErrBenchtime", err)
	}
}

func TestPlan(t *testing.T) {
	all, err := Plan(Selection{})
	if err != nil {
		t.Fatal(err)
	}
	if all[0].Workload.Name != "JobCreate" || all[0].Backend != "goroutine" {
		t.Errorf("first item %s, want JobCreate/backend=goroutine", all[0].Name())
	}
	items, err := Plan(Selection{Backends: []string{"peer-go"}, Bench: regexp.MustCompile(`^FanOut/`)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range items {
		names = append(names, it.Name())
	}
	want := "FanOut/backend=peer-go/n=10 FanOut/backend=peer-go/n=100 FanOut/backend=peer-go/n=1000"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("plan %q, want %q", got, want)
	}
	if _, err := Plan(Selection{Bench: regexp.MustCompile("NoSuch")}); !errors.Is(err, ErrNothingSelected) {
		t.Errorf("empty selection: err = %v", err)
	}
	lat := LatencyPlan(all)
	if len(lat) == 0 || lat[0].Name() != "Latency/JobCreate/backend=goroutine" {
		t.Errorf("latency plan %v", lat)
	}
	known := KnownBackends()
	if known[0] != "goroutine" || !strings.Contains(strings.Join(known, ","), "peer-context") {
		t.Errorf("KnownBackends() = %v", known)
	}
}

func TestEnv(t *testing.T) {
	cfg := Env{GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 2, Version: "1"}.Config()
	if len(cfg) != len(Keys) {
		t.Fatalf("%d config lines, want %d", len(cfg), len(Keys))
	}
	for i, c := range cfg {
		if c.Key != Keys[i] || !c.File || len(c.Value) == 0 {
			t.Errorf("config %d: %+v", i, c)
		}
	}
	if string(cfg[2].Value) != "unknown" || string(cfg[3].Value) != "2" {
		t.Errorf("cpu %q gomaxprocs %q, want unknown and 2", cfg[2].Value, cfg[3].Value)
	}
	info := "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\nmodel name\t: other\n"
	if got := parseCPUInfo(strings.NewReader(info)); got != "Intel(R) Xeon(R) CPU @ 2.20GHz" {
		t.Errorf("parseCPUInfo = %q", got)
	}
	if e := Environment("v"); e.GoVersion == "" || e.GOMAXPROCS < 1 || e.Version != "v" {
		t.Errorf("Environment() = %+v", e)
	}
}

// recorder is a Reporter that keeps the events.
type recorder struct{ starts, dones []Event }

func (r *recorder) Start(ev Event) { r.starts = append(r.starts, ev) }
func (r *recorder) Done(ev Event)  { r.dones = append(r.dones, ev) }
func (r *recorder) Finish()        {}

// Two benchmarks and a latency sampler, two rounds: A B L A B L.
func TestRunInterleaves(t *testing.T) {
	items, err := Plan(Selection{Backends: []string{"goroutine", "peer-go"}, Bench: regexp.MustCompile(`^JobCreate/`)})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	out, err := Run(items, Config{Count: 2, Benchtime: "3x", LatencySamples: 10, Env: Env{GOOS: "linux"}, Progress: rec})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, ev := range rec.starts {
		order = append(order, ev.Name)
	}
	a, b := "JobCreate/backend=goroutine", "JobCreate/backend=peer-go"
	la, lb := "Latency/"+a, "Latency/"+b
	want := strings.Join([]string{a, b, la, lb, a, b, la, lb}, " ")
	if got := strings.Join(order, " "); got != want {
		t.Errorf("run order\n%s\nwant\n%s", got, want)
	}
	if last := rec.dones[len(rec.dones)-1]; last.Index != 8 || last.Total != 8 || last.Round != 2 || last.ETA != 0 {
		t.Errorf("last event %+v", last)
	}
	path := filepath.Join(t.TempDir(), "results.txt")
	if err := out.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	set, err := results.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Results) != 8 || set.Config("goos") != "linux" || set.Config("cpu") != "unknown" {
		t.Errorf("%d results, goos %q", len(set.Results), set.Config("goos"))
	}
	var latency int
	for _, r := range set.Results {
		if results.Identify(r).Latency {
			latency++
			for _, u := range results.LatencyUnits {
				if v, ok := r.Value(u); !ok || v <= 0 {
					t.Errorf("%s: %s = %v, %v", r.Name, u, v, ok)
				}
			}
		}
	}
	if latency != 4 {
		t.Errorf("%d latency lines, want 4", latency)
	}
	if _, err := Run(items, Config{Count: 0, Benchtime: "1x"}); !errors.Is(err, ErrConfig) {
		t.Errorf("count 0: err = %v", err)
	}
}

func TestReporters(t *testing.T) {
	ev := Event{Round: 1, Rounds: 3, Index: 2, Total: 9, Name: "X/backend=y", ETA: 90 * time.Second, Took: 1234567 * time.Microsecond}
	var b bytes.Buffer
	r := NewReporter(&b, false)
	r.Start(ev)
	r.Done(ev)
	r.Finish()
	if got := b.String(); got != "kcbench: round 1/3 [2/9] X/backend=y: done (took 1.235s, ETA 1m30s)\n" {
		t.Errorf("log line %q", got)
	}
	b.Reset()
	r = NewReporter(&b, true)
	r.Start(ev)
	ev.Err = errors.New("boom")
	r.Done(ev)
	if got := b.String(); !strings.HasPrefix(got, "\r\033[Kround 1/3 [2/9] X/backend=y (ETA 1m30s)") || !strings.Contains(got, "FAILED: boom\n") {
		t.Errorf("terminal output %q", got)
	}
	if f, err := os.Open(os.DevNull); err == nil {
		if IsTerminal(f) {
			t.Errorf("%s is a terminal", os.DevNull)
		}
		f.Close()
	}
}

func TestETA(t *testing.T) {
	e := newETA(2, 3)
	if e.remaining() != -1 {
		t.Error("ETA before any run should be unknown")
	}
	e.record(0, 2*time.Second)
	if got := e.remaining(); got != 2*2*time.Second+3*2*time.Second { // task 1 unknown: the mean
		t.Errorf("remaining = %v", got)
	}
	e.record(1, time.Second)
	e.skip(1)
	if got := e.remaining(); got != 4*time.Second || e.total != 4 {
		t.Errorf("remaining = %v, total %d; want 4s, 4", got, e.total)
	}
}

func TestMachine(t *testing.T) {
	md := Machine(Env{GOOS: "linux", GOARCH: "amd64", CPU: "Some|CPU", GOMAXPROCS: 2, Commit: "abc"},
		[]string{"kcbench", "run", "-o", "x"}, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "other processes used 0.30 of 2 CPUs")
	for _, want := range []string{"| date | 2026-01-02T03:04:05Z |", "| command | `kcbench run -o x` |",
		`| cpu | Some\|CPU |`, "| gomaxprocs | 2 |", "| go runtime settings | ", "| commit | abc |", "| kcbench version | unknown |",
		"| load during the benchmarks | other processes used 0.30 of 2 CPUs |"} {
		if !strings.Contains(md, want) {
			t.Errorf("machine.md lacks %q:\n%s", want, md)
		}
	}
	if md := Machine(Env{}, nil, time.Time{}, ""); strings.Contains(md, "load during") {
		t.Errorf("machine.md without a load has a load row:\n%s", md)
	}
}

// The runtime settings row names what is set, and says so when nothing is.
func TestRuntimeSettings(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := runtimeSettings(getenv); !strings.HasPrefix(got, "defaults") {
		t.Errorf("nothing set: %q; want defaults", got)
	}
	env["GOGC"], env["GODEBUG"] = "off", "gctrace=1"
	if got, want := runtimeSettings(getenv), "`GOGC=off GODEBUG=gctrace=1`"; got != want {
		t.Errorf("GOGC and GODEBUG set: %q; want %q", got, want)
	}
}

// The autogroup row reads the kernel's switch; an unreadable or
// unexpected file gives no row.
func TestAutogroup(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{"0\n": "off", "1\n": "on: ", "2\n": "", "": ""} {
		f := filepath.Join(dir, "f")
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := autogroup(f); !strings.HasPrefix(got, want) || (want == "" && got != "") {
			t.Errorf("autogroup(%q) = %q; want prefix %q", content, got, want)
		}
	}
	if got := autogroup(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("autogroup(missing) = %q; want \"\"", got)
	}
}

func TestNextBenchtime(t *testing.T) {
	for _, tc := range []struct {
		bt   string
		ns   float64
		want string
	}{
		{"50ms", 500, "100000x"},
		{"50ms", 3, "16666667x"},
		{"50ms", 2e8, "1x"}, // slower than the benchtime: one op
		{"1s", 0.0001, "1000000000x"},
		{"10x", 500, "10x"}, // counts stay
		{"50ms", 0, "50ms"}, // nothing measured
	} {
		if got := nextBenchtime(tc.bt, Measurement{NsPerOp: tc.ns}); got != tc.want {
			t.Errorf("nextBenchtime(%q, %v ns/op) = %q, want %q", tc.bt, tc.ns, got, tc.want)
		}
		if err := ParseBenchtime(nextBenchtime(tc.bt, Measurement{NsPerOp: tc.ns})); err != nil {
			t.Error(err)
		}
	}
}

// converger is a recorder that is also told about precision rounds.
type converger struct {
	recorder
	rounds [][]string
}

func (c *converger) Converging(round int, names []string, widths []float64) {
	c.rounds = append(c.rounds, names)
	for _, w := range widths {
		if !(w > 0) {
			panic("non-positive width")
		}
	}
}

// An unreachable precision keeps adding rounds of the benchmarks (not of
// the latency lines) until the budget is spent; a reachable one ends the
// precision rounds with an empty list once the interval can be computed
// (6 runs: with fewer, benchmath gives no 95% interval).
func TestRunPrecision(t *testing.T) {
	items, err := Plan(Selection{Backends: []string{"goroutine"}, Bench: regexp.MustCompile(`^AwaitCached/`)})
	if err != nil {
		t.Fatal(err)
	}
	rec := &converger{}
	out, err := Run(items, Config{Count: 2, Benchtime: "100x", LatencySamples: 0, Progress: rec,
		Precision: 1e-12, Budget: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) <= 2 || len(rec.rounds) == 0 || len(rec.rounds[0]) != 1 {
		t.Errorf("%d results, precision rounds %v; want more than the 2 rounds", len(out.Results), rec.rounds)
	}
	if last := rec.dones[len(rec.dones)-1]; last.Rounds != 0 || last.Round <= 2 {
		t.Errorf("last event %+v; want a precision round", last)
	}
	rec = &converger{}
	if _, err := Run(items, Config{Count: 6, Benchtime: "100x", Progress: rec, Precision: 1e9, Budget: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if len(rec.rounds) != 1 || len(rec.rounds[0]) != 0 {
		t.Errorf("a reachable precision: rounds %v; want one empty list", rec.rounds)
	}
	if _, err := Run(items, Config{Count: 1, Benchtime: "1x", Precision: 0.02}); !errors.Is(err, ErrConfig) {
		t.Errorf("precision without budget: err = %v", err)
	}
}

// goodAndBroken returns the plan of AwaitCached on the goroutine backend
// and an item of the same workload on a backend that does not exist,
// which fails when it runs.
func goodAndBroken(t *testing.T) (items []Item, bad Item) {
	t.Helper()
	items, err := Plan(Selection{Backends: []string{"goroutine"}, Bench: regexp.MustCompile(`^AwaitCached/`)})
	if err != nil {
		t.Fatal(err)
	}
	return items, Item{Workload: items[0].Workload, Backend: "no-such-backend"}
}

// A benchmark that fails is run once: it is left out of the later rounds
// and of the precision rounds (where its width, with no values, would
// count as unbounded), its error is part of Run's, and the others'
// results are kept.
func TestRunDropsFailed(t *testing.T) {
	items, bad := goodAndBroken(t)
	rec := &converger{}
	out, err := Run(append(items, bad), Config{Count: 3, Benchtime: "100x", Progress: rec, Precision: 1e-12, Budget: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no-such-backend") {
		t.Errorf("err = %v; want the failed benchmark's error", err)
	}
	starts := 0
	for _, ev := range rec.starts {
		if ev.Name == bad.Name() {
			starts++
		}
	}
	if starts != 1 {
		t.Errorf("the failing benchmark ran %d times; want once", starts)
	}
	if len(out.Results) < 3 {
		t.Errorf("%d results; want the good benchmark's 3 rounds at least", len(out.Results))
	}
}

// Each latency percentile's unit names it, and ns/op keeps two decimals.
func TestUnitsAndRounding(t *testing.T) {
	for _, p := range LatencyPercentiles {
		if want := fmt.Sprintf("p%v-ns", p.Pct); p.Unit != want {
			t.Errorf("percentile %v has unit %q; want %q", p.Pct, p.Unit, want)
		}
	}
	for in, want := range map[float64]float64{1.23456: 1.23, 99.999: 100, 0.004: 0} {
		if got := round(in); got != want {
			t.Errorf("round(%v) = %v; want %v", in, got, want)
		}
	}
}
