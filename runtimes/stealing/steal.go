package stealing

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// spin looks for work outside the worker's own ring for up to spinRounds
// rounds, yielding the P between rounds: a ready coroutine of its P or the
// ready list, half of another ring's FIFO, or the injector's. In the last
// round it also takes another P's ready chain, or else a LIFO slot whose
// occupant did not change across a Gosched: such a task is not
// about to be run inline by its spawner's await, and its owner is probably
// blocked (the Go runtime waits 3 us before stealing runnext, for the same
// reason). Pinned sections here are bounded: one ring scan and one copy of
// at most ringSize/2 entries.
func (e *Executor) spin(w *worker) (*kc.Task, *coro) {
	for round := range spinRounds {
		if e.sched.closed.Load() {
			return nil, nil
		}
		if r := e.takeReady(); r != nil {
			return nil, r
		}
		if t := e.stealPass(w); t != nil {
			w.burst = true
			return t, nil
		}
		if t := e.fromInjector(); t != nil {
			w.burst = true
			return t, nil
		}
		if r := e.takeYielded(); r != nil {
			return nil, r
		}
		if round == spinRounds-1 {
			if r := e.stealReady(w); r != nil {
				return nil, r
			}
			return e.stealNext(w), nil
		}
		runtime.Gosched()
	}
	return nil, nil
}

// idleSpin is how long a spinning worker whose last spin found a batch
// keeps looking before it goes idle (spinFor).
const idleSpin = 20 * time.Microsecond

// spinFor spins (spin) once, or, if the worker's last spin found a batch
// (half of another ring's FIFO, or a share of the injector: w.burst), again
// and again until it finds work, idleSpin has passed, or the executor is
// closed. Work that came in a batch comes in bursts (a parent's next batch
// of children, the next op of a loop that launches them): a worker that ran
// dry between two bursts so takes the next burst's spawns as they come,
// instead of being woken for them. The wake goes through a Go channel and
// the Go scheduler and reaches the other P only after Go's wake of an idle
// P and, often, its 3 us wait before it steals a runnext, so the spawner
// meanwhile runs the burst alone. A worker that found no batch spins once,
// as Go's findRunnable does: one that kept spinning beside a task that
// launches a lone child at a time (and runs it inline, or joins it) would
// only keep reading that task's queues, moving their cache lines between
// the cores, for work that never comes to it. A long spin that finds
// nothing makes the next spin short. Its price is at most idleSpin of a
// P's time per burst, yielded at every round: a goroutine readied on that
// P (a timer's, a channel partner's) runs at the next Gosched. Cost: a
// clock read per spin.
func (e *Executor) spinFor(w *worker) (*kc.Task, *coro) {
	long := w.burst
	w.burst = false
	start := time.Now()
	for {
		if t, r := e.spin(w); t != nil || r != nil || e.sched.closed.Load() {
			return t, r
		}
		if !long || time.Since(start) >= idleSpin {
			return nil, nil
		}
	}
}

// stealPass looks once at every ring's FIFO, in a random order: it pops
// from the ring of the caller's P, steals half of any other ring's into it.
func (e *Executor) stealPass(w *worker) *kc.Task {
	n := len(e.rings)
	start := w.randomRing(n)
	pid := procPin()
	var own *ring
	if pid < n {
		own = &e.rings[pid]
		// stealInto needs our FIFO empty; something may have arrived on
		// this P since findLocal looked (or we changed P).
		if t := own.pop(); t != nil {
			procUnpin()
			return t
		}
	}
	for i := range n {
		v := &e.rings[(start+i)%n]
		var t *kc.Task
		switch {
		case own == nil:
			t = v.takeFIFO()
		case v != own:
			t = own.stealInto(v)
		}
		if t != nil {
			procUnpin()
			return t
		}
	}
	procUnpin()
	return nil
}

// stealNext takes a LIFO slot that holds the same runnable task before and
// after a Gosched: the first such slot from a random ring on, one
// candidate per call (every ring is a candidate, whatever GOMAXPROCS).
func (e *Executor) stealNext(w *worker) *kc.Task {
	n := len(e.rings)
	start := w.randomRing(n)
	for i := range n {
		r := &e.rings[(start+i)%n]
		if t := r.next.Load(); t != nil && !stale(t) {
			runtime.Gosched()
			if r.takeNext(t) {
				return t
			}
			return nil
		}
	}
	return nil
}

// stopSpinning ends the worker's spin, if it was spinning. If it was the last
// spinner and work is left, it wakes another worker: spawners that saw it
// spinning did not (Go's resetspinning).
func (e *Executor) stopSpinning(w *worker) {
	if !w.spinning {
		return
	}
	w.spinning = false
	if e.sched.spinning.Add(-1) == 0 && e.anyWork() {
		e.wake()
	}
}

// exit releases the worker's counts for good.
func (e *Executor) exit(w *worker) {
	if w.spinning {
		w.spinning = false
		e.sched.spinning.Add(-1)
	}
	e.sched.running.Add(-1)
}

// idleWait blocks an idle worker, whose counts are already released, until a
// waker hands it a running, spinning slot (true) or Close (false). It keeps
// at most base workers idle: one more exits at once (false), which is how
// the goroutines started to compensate for blocked ones retire.
func (e *Executor) idleWait(w *worker) bool {
	// The load keeps a burst of retiring workers (after a mass wake-up of
	// parked tasks) from all writing the counter only to undo it.
	if e.sched.idle.Load() >= e.base {
		return false
	}
	if e.sched.idle.Add(1) > e.base {
		e.sched.idle.Add(-1)
		return false
	}
	select {
	case <-e.idle:
		e.sched.idle.Add(-1)
		w.spinning = true
		return true
	case <-e.quit:
		e.sched.idle.Add(-1)
		return false
	}
}

var seed atomic.Uint32

// fastSeed returns a distinct non-zero seed for a worker's victim order.
func fastSeed() uint32 { return seed.Add(0x9e3779b9) | 1 }

// randomRing returns a ring index in [0, n) from the worker's xorshift
// generator: where a scan of the rings starts, so thieves spread out.
func (w *worker) randomRing(n int) int {
	w.rnd ^= w.rnd << 13
	w.rnd ^= w.rnd >> 17
	w.rnd ^= w.rnd << 5
	return int(w.rnd % uint32(n))
}
