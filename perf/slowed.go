package perf

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TaskIters is the number of xorshift steps of the FanOut task: about
// 200 ns of dependent integer arithmetic (1.55 ns a step on the 2-core
// development machine).
const TaskIters = 128

var (
	spinSeed uint64        = 0x9e3779b97f4a7c15 // a variable, so the compiler cannot fold task
	sinkHits atomic.Uint64                      // task results that were zero: never, in practice
)

// task is FanOut's per-child work: TaskIters steps of a xorshift64
// generator, a chain of dependent shifts and xors that the compiler cannot
// skip or vectorise, with the result kept observable.
func task() {
	x := spinSeed
	for range TaskIters {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	if x == 0 {
		sinkHits.Add(1)
	}
}

// Slowed is peer-go running a workload with a calibrated amount of extra
// busy time per op: a known, real slowdown for checking the regression gate.
//
// How, exactly:
//   - BaseNs is measured once per process and workload (NewSlowed caches
//     it, so every slowdown of a workload uses the same base): the unslowed
//     peer-go workload is run untimed in rounds of m ops, m doubled from 64
//     until a round lasts at least 10 ms; BaseNs is the median of 5 such
//     rounds, in ns per op.
//   - ExtraNs = BaseNs * Slowdown.
//   - Bench runs the peer-go workload unchanged and, at the end of its timed
//     region (when the workload stops the timer, after its last op and after
//     every goroutine it started has finished), busy-waits on the monotonic
//     clock for b.N * ExtraNs before the timer stops.
//
// So the reported ns/op is the run's own cost plus exactly ExtraNs: a fixed
// extra cost per op, like a real regression, added where it cannot overlap
// with anything the workload does (a spin inside JobCreate's launch loop
// would partly hide behind children running on other cores). The relative
// slowdown a run sees is ExtraNs over that run's own ns/op, which is
// Slowdown when the run costs BaseNs. Compare NewSlowed(w, 0) (A) with
// NewSlowed(w, s) (B): with Slowdown 0 the busy-wait is skipped and Bench is
// peer-go's benchmark exactly.
type Slowed struct {
	Workload string  // a workload that has peer-go and no size; see SlowedWorkloads
	Slowdown float64 // the fraction of BaseNs added per op (0.1 = +10%)
	BaseNs   float64 // peer-go's measured ns/op for the workload
	ExtraNs  float64 // busy time added per op

	run peerRun
}

// SlowedWorkloads returns the workloads NewSlowed accepts: the unsized
// workloads that have a peer-go.
func SlowedWorkloads() []string {
	var out []string
	for _, w := range workloads {
		if _, ok := w.peers[PeerGo]; ok && w.Sizes == nil {
			out = append(out, w.Name)
		}
	}
	return out
}

var (
	calMu  sync.Mutex
	baseNs = map[string]float64{} // under calMu
)

// NewSlowed calibrates (see Slowed) and returns peer-go's workload slowed
// by slowdown (>= 0, finite). It returns an error matching
// ErrUnknownWorkload or ErrBadArgument for bad input.
func NewSlowed(workload string, slowdown float64) (*Slowed, error) {
	if !slices.Contains(SlowedWorkloads(), workload) {
		return nil, &NameError{Kind: KindWorkload, Name: workload, What: "slowed peer", Known: SlowedWorkloads()}
	}
	if !(slowdown >= 0) || math.IsInf(slowdown, 1) {
		return nil, &ArgError{Workload: workload, Arg: "slowdown", Value: slowdown, Why: "must be finite and >= 0"}
	}
	w, _ := Lookup(workload)
	run := w.peers[PeerGo]
	calMu.Lock()
	defer calMu.Unlock()
	base, ok := baseNs[workload]
	if !ok {
		var err error
		if base, err = measureBase(run); err != nil {
			return nil, err
		}
		baseNs[workload] = base
	}
	return &Slowed{Workload: workload, Slowdown: slowdown, BaseNs: base, ExtraNs: base * slowdown, run: run}, nil
}

// SlowedBench is NewSlowed(workload, slowdown) followed by its Bench.
func SlowedBench(workload string, slowdown float64) (func(b *testing.B), error) {
	s, err := NewSlowed(workload, slowdown)
	if err != nil {
		return nil, err
	}
	return s.Bench, nil
}

// Bench runs the slowed workload as a benchmark.
func (s *Slowed) Bench(b *testing.B) {
	b.ReportAllocs()
	if err := s.runOps(b, b.N); err != nil {
		b.Fatalf("slowed %s: %v", s.Workload, err)
	}
}

// Run runs ops ops of the slowed workload, untimed but with the busy-wait.
func (s *Slowed) Run(ops int) error {
	if ops < 1 {
		return &ArgError{Workload: s.Workload, Arg: "ops", Value: ops, Why: "must be at least 1"}
	}
	return s.runOps(nopTimer{}, ops)
}

func (s *Slowed) runOps(t timer, ops int) error {
	if s.ExtraNs == 0 {
		return s.run(t, 0, ops)
	}
	return s.run(&slowTimer{timer: t, extra: time.Duration(s.ExtraNs * float64(ops))}, 0, ops)
}

// slowTimer busy-waits for extra when the workload first stops the timer.
type slowTimer struct {
	timer
	extra time.Duration
	spent bool
}

func (t *slowTimer) StopTimer() {
	if !t.spent {
		t.spent = true
		for end := time.Now().Add(t.extra); time.Now().Before(end); {
		}
	}
	t.timer.StopTimer()
}

func measureBase(run peerRun) (float64, error) {
	var err error
	round := func(m int) time.Duration { return timeIt(func() { err = run(nopTimer{}, 0, m) }) }
	m := 64
	for d := round(m); err == nil && d < 10*time.Millisecond && m < 1<<24; d = round(m) {
		m *= 2
	}
	if err != nil {
		return 0, err
	}
	var ns []float64
	for range 5 {
		d := round(m)
		if err != nil {
			return 0, err
		}
		ns = append(ns, float64(d.Nanoseconds())/float64(m))
	}
	slices.Sort(ns)
	return ns[len(ns)/2], nil
}

func timeIt(f func()) time.Duration {
	t0 := time.Now()
	f()
	return time.Since(t0)
}
