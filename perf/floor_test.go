package perf

import (
	"errors"
	"math"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// TestEveryWorkloadHasFloor checks that every workload runs on Floor,
// listed last by Backends, and that Lookup's copies keep it.
func TestEveryWorkloadHasFloor(t *testing.T) {
	for _, w := range Workloads() {
		bs := w.Backends()
		if len(bs) == 0 || bs[len(bs)-1] != Floor {
			t.Errorf("%s: Backends() = %v; want Floor last", w.Name, bs)
		}
		if w.floor == nil {
			t.Errorf("%s: no floor", w.Name)
		}
	}
	if _, err := (Workload{Name: "X"}).Bench(Floor, 0); !errors.Is(err, ErrUnknownWorkload) {
		t.Errorf("zero Workload: Bench(Floor) = %v; want ErrUnknownWorkload", err)
	}
}

func TestFloorJobSize(t *testing.T) {
	if got := unsafe.Sizeof(floorJob{}); got != FloorJobSize {
		t.Errorf("floorJob is %d bytes; want FloorJobSize = %d", got, FloorJobSize)
	}
	// A slab and its malloc header fit the 8 KiB size class exactly.
	if size := floorSlabJobs*FloorJobSize + 8; size > 8192 || size+FloorJobSize <= 8192 {
		t.Errorf("a slab of %d jobs takes %d bytes with its header; want the most that fit 8192", floorSlabJobs, size)
	}
}

// TestFloorAllocs checks that the floors allocate what they claim: one
// job record per JobCreate and AwaitPending op and per scope of
// NestedScopes, carved out of slabs of floorSlabJobs, and nothing per
// AwaitCached op, so that the compiler has put no record on the stack.
// Per run come the state, the closure Run binds and, for AwaitCached,
// the slab of its finished job.
func TestFloorAllocs(t *testing.T) {
	if goruntime.RaceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	const ops = 1000
	for _, c := range []struct {
		name   string
		perOp  float64
		extras float64 // allocations per run, outside the ops
	}{{"JobCreate", 1, 2}, {"AwaitPending", 1, 2}, {"NestedScopes", NestedDepth, 2}, {"AwaitCached", 0, 3}} {
		w, err := Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		var runErr error
		got := testing.AllocsPerRun(5, func() {
			if err := w.Run(Floor, 0, ops); err != nil {
				runErr = err
			}
		})
		if runErr != nil {
			t.Fatalf("%s: %v", c.name, runErr)
		}
		slabs := math.Ceil(c.perOp * ops / floorSlabJobs)
		if want := slabs + c.extras; got != want {
			t.Errorf("%s: %v allocations per run of %d ops; want %v", c.name, got, ops, want)
		}
	}
}

// TestFloorSizes runs the sized floors at sizes that do not divide
// evenly over the workers, and at sizes below GOMAXPROCS.
func TestFloorSizes(t *testing.T) {
	for _, name := range []string{"CancelFanout", "WaitersStorm", "FanOut"} {
		w, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 3, 7, runtime.GOMAXPROCS(0) + 1} {
			for _, ops := range []int{1, 5} {
				if err := w.Run(Floor, n, ops); err != nil {
					t.Errorf("%s n=%d ops=%d: %v", name, n, ops, err)
				}
			}
		}
	}
}

// TestFloorsLeaveNoGoroutine runs every floor and checks that its
// coroutines and helper goroutines have all ended.
func TestFloorsLeaveNoGoroutine(t *testing.T) {
	base := runtime.NumGoroutine()
	for _, w := range Workloads() {
		if err := w.Run(Floor, testSize(w), 3); err != nil {
			t.Errorf("%s: %v", w.Name, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > base {
		t.Errorf("%d goroutines after the floors ran; want at most %d", got, base)
	}
}

func TestFloorLatency(t *testing.T) {
	for _, name := range LatencyWorkloads() {
		d, err := SampleLatency(name, Floor, 50)
		if err != nil || len(d) != 50 {
			t.Errorf("%s: %d samples, %v", name, len(d), err)
		}
	}
}

// TestLatencyFloorAllocsNothing checks that the latency floors' ops
// allocate nothing once made for a number of ops (their records are
// carved beforehand, floorState.reserve), so that no sample pays for a
// slab: the floor's high percentiles stay a lower bound.
func TestLatencyFloorAllocsNothing(t *testing.T) {
	if goruntime.RaceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	for _, name := range LatencyWorkloads() {
		// AllocsPerRun truncates its average to an integer: one run is a
		// slab's worth of ops, which would allocate once without reserve.
		const runs = 20
		op, done := latencyPeers[name][Floor]((runs + 1) * floorSlabJobs) // AllocsPerRun warms up with one more run
		var opErr error
		if got := testing.AllocsPerRun(runs, func() {
			for range floorSlabJobs {
				if err := op(); err != nil {
					opErr = err
				}
			}
		}); got != 0 {
			t.Errorf("%s: %v allocations per %d ops; want 0", name, got, floorSlabJobs)
		}
		done()
		if opErr != nil {
			t.Fatalf("%s: %v", name, opErr)
		}
	}
}
