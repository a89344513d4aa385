package perf

import (
	"fmt"
	"runtime"
	"sync/atomic"
)

// Floor is the backend name of the floor rows: each workload's
// irreducible work done in plain Go on the machine of the run, a lower
// bound that no runtime reaches without skipping work the workload asks
// for (doc.go, "Floors", gives the reasoning per workload). It runs
// beside the backends and peers as backend=floor.
const Floor = "floor"

// FloorJobSize is the size of the record the floors allocate wherever a
// runtime must allocate a job: a parent link, a body, a queue link, a
// result (value and error) and a state word, padded to 128 bytes, the
// least a cancellable job with a result is given room for.
const FloorJobSize = 128

// floorSlabJobs is how many job records one allocation of the floors
// holds: a job handed to user code cannot be reused, so it costs at
// least its share of a fresh allocation, and with slabs that share comes
// down to little more than the zeroing of its 128 bytes. A runtime can
// carve jobs out of slabs too (kc does), so the floor does. 63 records
// and the 8-byte malloc header of an object with pointers fill the
// 8 KiB size class; 64 would spill into the next one.
const floorSlabJobs = 63

// floorJob stands for a job. Its fields are touched by one goroutine at a
// time, except state, which is atomic because a real job's state is read
// by other workers (completion is published there with release
// semantics, and an await reads it with acquire semantics).
type floorJob struct {
	parent *floorJob
	body   func(*floorJob)
	next   *floorJob // the waiter list of an event
	err    error
	v      int
	state  atomic.Int64 // number of completions (0: pending)
	_      [FloorJobSize - 56]byte
}

// floorRing is the least a run queue can be: one owner, a plain array
// and two indexes, no atomics. A pop clears its slot so that the queue
// does not keep a finished job alive, as a real queue must.
type floorRing struct {
	head, tail uint32
	buf        [256]*floorJob
}

func (r *floorRing) push(j *floorJob) {
	r.buf[r.tail%uint32(len(r.buf))] = j
	r.tail++
}

func (r *floorRing) pop() *floorJob {
	if r.head == r.tail {
		return nil
	}
	i := r.head % uint32(len(r.buf))
	j := r.buf[i]
	r.buf[i] = nil
	r.head++
	return j
}

// floorState is the state of one floor run. It is kept on the heap
// (floorSink), and with it the slabs its job records come from: the
// compiler cannot put a record on the stack, as no runtime could put a
// launched job there.
type floorState struct {
	runq floorRing
	slab []floorJob // the job records not handed out yet
	jobs int64      // jobs completed: the floor's own check, a plain count
}

// newJob returns a zeroed job record, carved out of the current slab.
func (s *floorState) newJob() *floorJob {
	if len(s.slab) == 0 {
		s.slab = make([]floorJob, floorSlabJobs)
	}
	j := &s.slab[0]
	s.slab = s.slab[1:]
	return j
}

// reserve carves the records of the next n jobs out of one allocation
// made now, so that newJob allocates nothing for them. The latency floor
// uses it: a runtime may refill its slabs off the timed path (on an idle
// worker), so the irreducible latency of one launch is the zeroed record's
// use, not its slab's allocation, which would otherwise land on one sample
// in floorSlabJobs and set p99.
//
// The records are written once here: a large allocation on fresh memory
// is not cleared (the OS gives it zeroed), so its pages would otherwise
// fault in during the timing, one sample in 32 (4 KiB over 128 bytes).
func (s *floorState) reserve(n int) {
	if n > len(s.slab) {
		s.slab = make([]floorJob, n)
		for i := range s.slab {
			s.slab[i].v = 0
		}
	}
}

var floorSink atomic.Pointer[floorState] // keeps every floorState on the heap

func newFloorState() *floorState {
	s := new(floorState)
	floorSink.Store(s)
	return s
}

//go:noinline
func floorEmpty(*floorJob) {}

//go:noinline
func floorOne(j *floorJob) { j.v = 1 }

// launch is one job's irreducible life: allocate it, queue it, dequeue
// it, call its body and publish its completion with one atomic add, as
// whoever waits for it (its parent, an await) may run on another worker.
func (s *floorState) launch(body func(*floorJob)) *floorJob {
	j := s.newJob()
	j.body = body
	s.runq.push(j)
	j = s.runq.pop()
	j.body(j)
	j.state.Add(1)
	s.jobs++
	return j
}

// awaitPending is one AwaitPending op: launch a job with a result, then
// read the published result, as an await of a finished job does.
func (s *floorState) awaitPending() error {
	j := s.launch(floorOne)
	if j.state.Load() == 0 || j.err != nil || j.v != 1 {
		return fmt.Errorf("await: %d, %v", j.v, j.err)
	}
	return nil
}

// floorSerial runs ops calls of op on one floorState and checks that
// every op completed one job per count.
func floorSerial(count int64, op func(s *floorState) error) peerRun {
	return func(t timer, _, ops int) error {
		s := newFloorState()
		t.ResetTimer()
		for range ops {
			if err := op(s); err != nil {
				return err
			}
		}
		t.StopTimer()
		if got := s.jobs; got != count*int64(ops) {
			return fmt.Errorf("%d jobs completed, want %d", got, count*int64(ops))
		}
		return nil
	}
}

var (
	floorJobCreate = floorSerial(1, func(s *floorState) error {
		s.launch(floorEmpty)
		return nil
	})
	floorAwaitPending = floorSerial(1, (*floorState).awaitPending)
	floorNestedScopes = floorSerial(NestedDepth, func(s *floorState) error {
		if leaf := floorNest(s, nil, NestedDepth); leaf == nil {
			return fmt.Errorf("nested scopes ended without a leaf")
		}
		return nil
	})
)

// floorAwaitCached reads the published result of a finished job: one
// acquire load of its state and the loads of its value and error.
func floorAwaitCached(t timer, _, ops int) error {
	s := newFloorState()
	d := s.launch(floorOne)
	sum := 0
	t.ResetTimer()
	for range ops {
		if d.state.Load() == 0 || d.err != nil {
			return fmt.Errorf("await of a finished job: %v", d.err)
		}
		sum += d.v
	}
	t.StopTimer()
	if sum != ops {
		return fmt.Errorf("awaits summed to %d, want %d", sum, ops)
	}
	return nil
}

// floorNest makes depth nested scopes under parent, each a job record
// linked to its parent, entered by a call that cannot be inlined, and
// checked on the way out (one acquire load) for children to wait for. It
// returns the innermost scope.
//
//go:noinline
func floorNest(s *floorState, parent *floorJob, depth int) *floorJob {
	if depth == 0 {
		return parent
	}
	sc := s.newJob()
	sc.parent = parent
	leaf := floorNest(s, sc, depth-1)
	if sc.state.Load() != 0 {
		return nil // a scope with a child left: never, here
	}
	s.jobs++
	return leaf
}

// floorFanOut runs, per op, the busiest worker's share of the n
// children: ceil(n/P) launches (see launch), each running the task, back
// to back on one goroutine, P = GOMAXPROCS. When P divides n that is the
// op's total work over P, which no schedule beats; it leaves out every
// cost of spreading the children (waking workers, a barrier), which
// would only raise the floor, and with it the noise of a loaded machine.
func floorFanOut(t timer, n, ops int) error {
	s := newFloorState()
	share := busiestShare(n)
	t.ResetTimer()
	for range ops {
		for range share {
			s.launch(floorTask)
		}
	}
	t.StopTimer()
	if got := s.jobs; got != int64(ops*share) {
		return fmt.Errorf("%d jobs completed, want %d", got, ops*share)
	}
	return nil
}

func floorTask(*floorJob) { task() }

// busiestShare is how many of n equal items the busiest of GOMAXPROCS
// workers gets when they are shared out as evenly as possible.
func busiestShare(n int) int {
	p := runtime.GOMAXPROCS(0)
	return (n + p - 1) / p
}
