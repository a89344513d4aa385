package perf

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcbench/kcbench/runtimes"
)

// The contract of DESIGN.md "Benchmarks and reports": Names and Peers are
// the one list that the benchmarks (TestBenchmarkPerWorkload) and the
// reports (cmd/kcbench/internal/results) read; this copy checks that it
// does not drift from the contract, which baselines refer to.
var (
	contractNames = []string{"JobCreate", "AwaitCached", "AwaitPending", "CancelFanout",
		"WaitersStorm", "NestedScopes", "FanOut", "ChanPingPong", "ChanBuffered", "Select", "SleepWake"}
	contractSizes = map[string][]int{"CancelFanout": {1000, 10000, 100000},
		"WaitersStorm": {32}, "FanOut": {10, 100, 1000}}
	contractPeers = []string{"peer-go", "peer-errgroup", "peer-conc", "peer-context"}
)

func TestNames(t *testing.T) {
	if got := Names(); !slices.Equal(got, contractNames) {
		t.Errorf("Names() = %v, want %v", got, contractNames)
	}
	if got := Peers(); !slices.Equal(got, contractPeers) {
		t.Errorf("Peers() = %v, want %v", got, contractPeers)
	}
	for _, w := range Workloads() {
		if !slices.Equal(w.Sizes, contractSizes[w.Name]) {
			t.Errorf("%s: Sizes = %v, want %v", w.Name, w.Sizes, contractSizes[w.Name])
		}
		if w.Op == "" {
			t.Errorf("%s: no Op description", w.Name)
		}
		bs := w.Backends()
		regs := runtimes.Names()
		if len(bs) < len(regs) || !slices.Equal(bs[:len(regs)], regs) {
			t.Errorf("%s: Backends() = %v does not start with the registered %v", w.Name, bs, regs)
			continue
		}
		for _, p := range bs[len(regs):] {
			if !slices.Contains(contractPeers, p) && p != Floor {
				t.Errorf("%s: backend %q is neither registered nor a peer", w.Name, p)
			}
		}
	}
	w := Workloads()
	w[3].Sizes[0] = -1 // Workloads returns copies
	if Workloads()[3].Sizes[0] != 1000 {
		t.Error("Workloads shares its Sizes with the caller")
	}
}

// TestBenchmarkPerWorkload ties bench_test.go to Names: each workload has
// its Benchmark<Name> function, which runs that workload, and every such
// function runs a workload of Names.
func TestBenchmarkPerWorkload(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "bench_test.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]string{} // Benchmark function -> the workload it runs
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || !strings.HasPrefix(fn.Name.Name, "Benchmark") || len(fn.Body.List) != 1 {
			continue
		}
		call, ok := fn.Body.List[0].(*ast.ExprStmt)
		if !ok {
			continue
		}
		if c, ok := call.X.(*ast.CallExpr); ok && len(c.Args) == 2 {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "benchWorkload" {
				if lit, ok := c.Args[1].(*ast.BasicLit); ok {
					runs[fn.Name.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	for _, name := range Names() {
		if got, ok := runs["Benchmark"+name]; !ok || got != name {
			t.Errorf("bench_test.go: Benchmark%s runs %q; want a Benchmark%[1]s that runs benchWorkload(b, %[1]q)", name, got)
		}
		delete(runs, "Benchmark"+name)
	}
	for fn, name := range runs {
		t.Errorf("bench_test.go: %s runs workload %q; want only workloads of Names()", fn, name)
	}
}

// checkTimer stands in for *testing.B and checks how a workload uses it.
type checkTimer struct {
	on      bool // the timer runs when a benchmark function starts
	metrics map[string]float64
}

func (c *checkTimer) ResetTimer()            {}
func (c *checkTimer) StartTimer()            { c.on = true }
func (c *checkTimer) StopTimer()             { c.on = false }
func (c *checkTimer) Elapsed() time.Duration { return time.Second }
func (c *checkTimer) ReportMetric(v float64, unit string) {
	c.metrics[unit] = v
}

// testSize is a small n for each sized workload.
func testSize(w Workload) int {
	if w.Sizes == nil {
		return 0
	}
	return min(w.Sizes[0], 16)
}

// TestEveryWorkloadRuns runs each workload x backend through the code its
// benchmark runs, with a few ops, and checks the timer is stopped at the end
// (so Close is never timed) and the extra metrics.
func TestEveryWorkloadRuns(t *testing.T) {
	for _, w := range Workloads() {
		for _, backend := range w.Backends() {
			n := testSize(w)
			t.Run(w.Name+"/backend="+backend+"/n="+strconv.Itoa(n), func(t *testing.T) {
				if _, err := w.Bench(backend, n); err != nil {
					t.Fatalf("Bench: %v", err)
				}
				run, err := w.bind(backend, n)
				if err != nil {
					t.Fatal(err)
				}
				for _, ops := range []int{1, 3} {
					c := &checkTimer{on: true, metrics: map[string]float64{}}
					if err := run(c, ops); err != nil {
						t.Fatalf("%d ops: %v", ops, err)
					}
					if c.on {
						t.Errorf("%d ops: the timer is still running at the end", ops)
					}
					if w.Name == "CancelFanout" {
						if want := 1e9 / float64(ops*n); c.metrics["ns/child"] != want {
							t.Errorf("%d ops: ns/child = %v, want %v", ops, c.metrics["ns/child"], want)
						}
					}
				}
				if err := w.Run(backend, n, 2); err != nil {
					t.Errorf("Run: %v", err)
				}
			})
		}
	}
}

func TestWaitersStormOtherSizes(t *testing.T) {
	w, _ := Lookup("WaitersStorm")
	for _, n := range []int{1, 5} {
		if err := w.Run(runtimes.Names()[0], n, 2); err != nil {
			t.Errorf("n=%d: %v", n, err)
		}
	}
}

func TestBadNames(t *testing.T) {
	_, err := Lookup("Nope")
	var ne *NameError
	if !errors.Is(err, ErrUnknownWorkload) || !errors.As(err, &ne) || ne.Name != "Nope" {
		t.Errorf("Lookup(Nope) = %v", err)
	}
	if _, err := (Workload{}).Bench("goroutine", 0); !errors.Is(err, ErrUnknownWorkload) {
		t.Errorf("zero Workload: Bench = %v", err)
	}
	jc, _ := Lookup("JobCreate")
	cached, _ := Lookup("AwaitCached")
	fan, _ := Lookup("FanOut")
	for _, c := range []struct {
		w       Workload
		backend string
	}{{jc, "nope"}, {jc, ""}, {jc, "peer-nope"}, {cached, "peer-context"}, {fan, "peer-context"}} {
		_, err := c.w.Bench(c.backend, testSize(c.w))
		if !errors.Is(err, ErrUnknownBackend) || !errors.Is(err, runtimes.ErrUnknownBackend) ||
			!errors.As(err, &ne) || ne.Kind != KindBackend || ne.Workload != c.w.Name {
			t.Errorf("%s: Bench(%q) = %v", c.w.Name, c.backend, err)
		}
		if err := c.w.Run(c.backend, testSize(c.w), 1); !errors.Is(err, ErrUnknownBackend) {
			t.Errorf("%s: Run(%q) = %v", c.w.Name, c.backend, err)
		}
	}
	var ae *ArgError
	for _, c := range []struct {
		w     Workload
		n, op int
	}{{jc, 1, 1}, {jc, -1, 1}, {fan, 0, 1}, {fan, -5, 1}, {fan, MaxSize + 1, 1}, {jc, 0, 0}, {fan, 10, -1}} {
		if err := c.w.Run("goroutine", c.n, c.op); !errors.Is(err, ErrBadArgument) || !errors.As(err, &ae) {
			t.Errorf("%s: Run(n=%d, ops=%d) = %v", c.w.Name, c.n, c.op, err)
		}
	}
}

func TestSampleLatency(t *testing.T) {
	for _, name := range LatencyWorkloads() {
		w, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, backend := range w.Backends() {
			d, err := SampleLatency(name, backend, 7)
			if err != nil || len(d) != 7 {
				t.Errorf("%s/%s: %d samples, %v", name, backend, len(d), err)
			}
			for _, x := range d {
				if x < 0 {
					t.Errorf("%s/%s: negative sample %v", name, backend, x)
				}
			}
		}
	}
	for _, c := range []struct {
		w, b string
		n    int
		want error
	}{{"FanOut", "goroutine", 5, ErrUnknownWorkload}, {"Nope", "goroutine", 5, ErrUnknownWorkload},
		{"JobCreate", "nope", 5, ErrUnknownBackend}, {"AwaitPending", "peer-context", 5, ErrUnknownBackend},
		{"JobCreate", "goroutine", 0, ErrBadArgument}} {
		if d, err := SampleLatency(c.w, c.b, c.n); !errors.Is(err, c.want) || d != nil {
			t.Errorf("SampleLatency(%s, %s, %d) = %v, %v; want %v", c.w, c.b, c.n, d, err, c.want)
		}
	}
}

func TestSlowed(t *testing.T) {
	if got := SlowedWorkloads(); !slices.Equal(got, []string{"JobCreate", "AwaitCached", "AwaitPending",
		"ChanPingPong", "ChanBuffered", "Select", "SleepWake"}) {
		t.Errorf("SlowedWorkloads() = %v", got)
	}
	for _, name := range SlowedWorkloads() {
		s, err := NewSlowed(name, 0.25)
		if err != nil {
			t.Fatal(err)
		}
		if !(s.BaseNs > 0) || s.ExtraNs != s.BaseNs*0.25 {
			t.Errorf("%s: BaseNs %v, ExtraNs %v", name, s.BaseNs, s.ExtraNs)
		}
		s0, err := NewSlowed(name, 0)
		if err != nil || s0.BaseNs != s.BaseNs || s0.ExtraNs != 0 {
			t.Errorf("%s: slowdown 0: %+v, %v (the base must be cached)", name, s0, err)
		}
		for _, x := range []*Slowed{s, s0} {
			if err := x.Run(3); err != nil {
				t.Errorf("%s: Run: %v", name, err)
			}
		}
		if f, err := SlowedBench(name, 0.1); f == nil || err != nil {
			t.Errorf("SlowedBench(%s) = %v", name, err)
		}
	}
	for _, c := range []struct {
		w    string
		s    float64
		want error
	}{{"FanOut", 0.1, ErrUnknownWorkload}, {"Nope", 0.1, ErrUnknownWorkload},
		{"JobCreate", -0.1, ErrBadArgument}, {"JobCreate", math.NaN(), ErrBadArgument},
		{"JobCreate", math.Inf(1), ErrBadArgument}} {
		if f, err := SlowedBench(c.w, c.s); !errors.Is(err, c.want) || f != nil {
			t.Errorf("SlowedBench(%s, %v) = %v; want %v", c.w, c.s, err, c.want)
		}
	}
}

func TestSlowTimerSpendsOnce(t *testing.T) {
	c := &checkTimer{on: true}
	st := &slowTimer{timer: c, extra: time.Microsecond}
	st.StopTimer()
	if !st.spent || c.on {
		t.Errorf("after StopTimer: spent %v, inner timer on %v", st.spent, c.on)
	}
}
