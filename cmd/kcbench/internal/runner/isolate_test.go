package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestMain makes this test binary a worker when WorkerEnv says so: "serve"
// serves requests (ServeWorker), "die" writes a last word to stderr and
// exits at once, as a worker that crashes would.
func TestMain(m *testing.M) {
	switch os.Getenv(WorkerEnv) {
	case "serve":
		if err := ServeWorker(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "die":
		fmt.Fprintln(os.Stderr, "worker gave up")
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// testIsolation starts this test binary as a worker in the given mode and
// counts the starts. When the test ends, every worker it started must
// have been waited for (Run stops them all before it returns).
func testIsolation(t *testing.T, mode string, starts *atomic.Int32) *Isolation {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd // only Run's goroutine starts workers
	t.Cleanup(func() {
		for i, cmd := range cmds {
			if cmd.ProcessState == nil {
				t.Errorf("worker %d was not waited for", i)
				cmd.Process.Kill()
			}
		}
	})
	return &Isolation{Command: func() *exec.Cmd {
		starts.Add(1)
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), WorkerEnv+"="+mode)
		cmds = append(cmds, cmd)
		return cmd
	}}
}

// An isolated run gives what an in-process run gives, in the same order,
// from one worker per workload and size.
func TestIsolatedRun(t *testing.T) {
	items, err := Plan(Selection{Backends: []string{"goroutine", "peer-go"}, Bench: regexp.MustCompile(`^(JobCreate|AwaitCached)/`)})
	if err != nil {
		t.Fatal(err)
	}
	var starts atomic.Int32
	rec := &recorder{}
	out, err := Run(items, Config{Count: 2, Benchtime: "3x", LatencySamples: 10, Env: Env{GOOS: "linux"}, Progress: rec,
		Isolate: testIsolation(t, "serve", &starts)})
	if err != nil {
		t.Fatal(err)
	}
	if n := starts.Load(); n != 2 {
		t.Errorf("%d workers started; want 2, one for JobCreate and one for AwaitCached", n)
	}
	var order []string
	for _, ev := range rec.starts {
		order = append(order, ev.Name)
	}
	round := "JobCreate/backend=goroutine JobCreate/backend=peer-go AwaitCached/backend=goroutine AwaitCached/backend=peer-go " +
		"Latency/JobCreate/backend=goroutine Latency/JobCreate/backend=peer-go"
	if got, want := strings.Join(order, " "), round+" "+round; got != want {
		t.Errorf("run order\n%s\nwant\n%s", got, want)
	}
	var buf bytes.Buffer
	if err := out.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 12 {
		t.Fatalf("%d results; want 12:\n%s", len(out.Results), buf.String())
	}
	for _, r := range out.Results {
		name := string(r.Name)
		if len(r.Config) == 0 || r.Iters <= 0 {
			t.Errorf("%s: config %v, iters %d", name, r.Config, r.Iters)
		}
		unit := "ns/op"
		if strings.HasPrefix(name, "Latency/") {
			unit = "p99-ns"
		} else if r.Iters != 3 {
			t.Errorf("%s: %d iters; want 3 (-benchtime 3x)", name, r.Iters)
		}
		if v, ok := r.Value(unit); !ok || v <= 0 {
			t.Errorf("%s: %s = %v, %v", name, unit, v, ok)
		}
	}
	if !strings.Contains(buf.String(), "goos: linux") {
		t.Errorf("results without their configuration:\n%s", buf.String())
	}
	if _, err := Run(items, Config{Count: 1, Benchtime: "1x", Isolate: &Isolation{}}); !errors.Is(err, ErrConfig) {
		t.Errorf("Isolation without a Command: err = %v; want ErrConfig", err)
	}
}

// A worker that dies fails the benchmark it was running with ErrWorker and
// the end of its stderr; the next request of its group starts a new one.
// Run returns, with the failures, and no result.
func TestIsolatedWorkerDies(t *testing.T) {
	items, err := Plan(Selection{Backends: []string{"goroutine"}, Bench: regexp.MustCompile(`^(JobCreate|AwaitCached)/`)})
	if err != nil {
		t.Fatal(err)
	}
	var starts atomic.Int32
	out, err := Run(items, Config{Count: 2, Benchtime: "1x", LatencySamples: 10, Isolate: testIsolation(t, "die", &starts)})
	if !errors.Is(err, ErrWorker) || !strings.Contains(err.Error(), "worker gave up") {
		t.Errorf("err = %v; want ErrWorker with the worker's stderr", err)
	}
	if out == nil || len(out.Results) != 0 {
		t.Errorf("output %+v; want no results", out)
	}
	// Three tasks (two benchmarks and JobCreate's latency), each dropped
	// after its first failure; the latency line finds its group's worker
	// gone and starts another.
	if n := starts.Load(); n != 3 {
		t.Errorf("%d workers started; want 3", n)
	}
}

// A benchmark that fails in a worker fails alone: the worker answers with
// the error and goes on serving its group.
func TestIsolatedBenchFails(t *testing.T) {
	items, bad := goodAndBroken(t)
	var starts atomic.Int32
	out, err := Run(append(items, bad), Config{Count: 3, Benchtime: "100x", Isolate: testIsolation(t, "serve", &starts)})
	if err == nil || !strings.Contains(err.Error(), "no-such-backend") || errors.Is(err, ErrWorker) {
		t.Errorf("err = %v; want the failed benchmark's error, not a worker failure", err)
	}
	if len(out.Results) != 3 || starts.Load() != 1 {
		t.Errorf("%d results from %d workers; want 3 from 1", len(out.Results), starts.Load())
	}
}

// ServeWorker answers each request line with one line: ok and a result,
// or err and why.
func TestServeWorker(t *testing.T) {
	in := strings.NewReader("bench AwaitCached floor 0 10x\nlatency JobCreate floor 5\nbench NoSuch floor 0 1x\nbench AwaitCached floor zero 1x\nlatency JobCreate floor 0\nhello\n")
	var out bytes.Buffer
	if err := ServeWorker(in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{"ok BenchmarkAwaitCached/backend=floor", "ok BenchmarkLatency/JobCreate/backend=floor", "err ", "err bad size", "err bad sample count", "err bad request"}
	if len(lines) != len(want) {
		t.Fatalf("%d answers; want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, want[i]) {
			t.Errorf("answer %d: %q; want it to start with %q", i, l, want[i])
		}
	}
}

// Later rounds of an isolated run skip the ramp-up as in-process ones do:
// round 2 runs the iteration count that round 1's ns/op says fills the
// benchtime.
func TestIsolatedNextBenchtime(t *testing.T) {
	items, err := Plan(Selection{Backends: []string{"goroutine"}, Bench: regexp.MustCompile(`^AwaitCached/`)})
	if err != nil {
		t.Fatal(err)
	}
	var starts atomic.Int32
	out, err := Run(items, Config{Count: 2, Benchtime: "5ms", Isolate: testIsolation(t, "serve", &starts)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 2 {
		t.Fatalf("%d results; want 2", len(out.Results))
	}
	ns, _ := out.Results[0].Value("ns/op")
	if want, _ := strconv.Atoi(strings.TrimSuffix(nextBenchtime("5ms", Measurement{NsPerOp: ns}), "x")); out.Results[1].Iters != want {
		t.Errorf("round 2 ran %d iterations; want %d, from round 1's %v ns/op", out.Results[1].Iters, want, ns)
	}
}
