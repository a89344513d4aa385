package kc

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Executor is what a backend implements: where job bodies run, how a blocked
// task waits, and timers. The semantics (the job tree, cancellation, results)
// live in this package and are the same for every backend.
//
// All methods must be safe for concurrent use.
type Executor interface {
	// Spawn arranges for t.Run to be called once, on some goroutine, soon.
	// It never blocks the caller and never runs t on the caller's stack.
	// Spawn after Close is a bug in the core and may panic.
	Spawn(t *Task)

	// Park blocks the calling goroutine until Unpark(p) has been called.
	// If Unpark came first, Park returns at once. Each Parker is parked and
	// unparked exactly once. p.Worker reports whether the caller is running a
	// task of this executor (so a backend with a fixed set of workers knows
	// whether to compensate for the blocked one).
	Park(p *Parker)

	// Unpark wakes the goroutine blocked (or about to block) in Park(p). It
	// never blocks and never runs the woken task on the caller's stack.
	Unpark(p *Parker)

	// AfterFunc calls f on some goroutine after d, unless the returned
	// Timer is stopped first. *time.Timer satisfies Timer.
	AfterFunc(d time.Duration, f func()) Timer

	// Close waits until every spawned task has returned from Run and every
	// goroutine the executor started has exited. The core calls it once,
	// after every job is terminal and every timer stopped or fired.
	Close() error
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call if it has not started; it reports whether it did.
	Stop() bool
}

// Task is the executor's view of a job: a body to run. The only thing an
// executor does with a *Task is hold it in a queue and call Run once. Task has
// the same memory layout as Job, so handing one to an executor costs nothing.
type Task Job

// Run runs the job's body to completion on the calling goroutine, then
// performs the job's end-of-body transition. If the body was already claimed
// (an awaiting job ran it inline), Run returns at once: an executor may keep
// stale queue entries and need not remove them.
//
// Run recovers panics from the body (they fail the job). A body that calls
// runtime.Goexit fails its job with ErrGoexit and then ends the calling
// goroutine, as Goexit does; an executor that reuses goroutines must be
// prepared for that (for example by running Run under a deferred restart).
func (t *Task) Run() {
	j := (*Job)(t)
	if j.claim() {
		j.run(nil)
	}
}

// RunOn is Run for a goroutine that runs many tasks: it batches the
// releases of their parents in w (see Worker), flushing w first if t is not
// a child of the parent w holds releases for.
func (t *Task) RunOn(w *Worker) {
	j := (*Job)(t)
	if w.owed != nil && (j.parent != w.owed || !j.attached()) {
		w.Flush()
	}
	if j.claim() {
		j.run(w)
	}
}

// Worker batches the releases of the jobs one goroutine runs: when several
// children of one parent end in a row on it (a worker draining a batch of
// stolen tasks), the parent's hold count is changed once, by Flush or by
// the next task of another parent, instead of once per child, which keeps
// the parent's state word from moving between cores on every child. The
// zero Worker is ready to use. A Worker belongs to one goroutine at a time.
//
// The batch delays only the parent's own end (and WaitAll on it): every
// child in it is already terminal. RunOn flushes before a task that is not
// a child of the batched parent, because that task might wait for the
// parent; a child of it cannot without waiting for itself. The executor must
// call Flush before the goroutine stops running tasks (goes idle, parks,
// exits, or is ended by runtime.Goexit).
type Worker struct {
	owed *Job   // the parent whose holds the batch drops; nil if none
	n    uint64 // how many
}

// owe adds the release of one hold on p to the batch.
func (w *Worker) owe(p *Job) {
	if w.owed == p {
		w.n++
		return
	}
	w.Flush()
	w.owed, w.n = p, 1
}

// Flush drops the batched holds. It may finish the parent, and through it
// its ancestors; should one of their releases be batched on w again, Flush
// drops that too, so w holds nothing when it returns.
func (w *Worker) Flush() {
	for w.owed != nil {
		p, n := w.owed, w.n
		w.owed, w.n = nil, 0
		p.release(n, w)
	}
}

// Pending reports whether w holds releases that Flush would drop.
func (w *Worker) Pending() bool { return w.owed != nil }

// Job returns the job this task runs.
func (t *Task) Job() *Job { return (*Job)(t) }

// Finished reports whether the task's job is terminal (so Run would return
// at once: a stale queue entry). One atomic load: unlike Job().State(),
// which may take locks to record a parent's cancellation, it never blocks,
// so an executor may call it in a pinned section or under a spinlock.
func (t *Task) Finished() bool { return (*Job)(t).terminal() }

// Parker is a one-shot wake-up for one blocked goroutine: it is parked once
// and unparked once. The core allocates one per blocking wait; an Executor
// implements Park and Unpark with Wait and Signal, around which it may do its
// own bookkeeping (release a worker slot, compensate, count blocked workers).
//
// The zero Parker is not ready for use; the core prepares every Parker it
// hands to an executor.
type Parker struct {
	sema sync.WaitGroup // count 1 until Signal: Wait blocks on it

	// reason is the wake reason, 0 until the first wake. Written once by CAS
	// (the winner then calls Executor.Unpark); read by the woken goroutine
	// after Park returns, which the WaitGroup orders after the CAS.
	reason atomic.Uint32
	worker bool // immutable after init
	quick  bool // immutable after init: see QuickWake
}

// Wake reasons stored in Parker.reason. Zero means "not woken yet".
const (
	wakeDone    uint32 = iota + 1 // the awaited condition holds
	wakeCancel                    // the waiting job was cancelled
	wakeTimeout                   // the wait's own timer fired
)

func (p *Parker) init(worker bool) {
	p.sema.Add(1)
	p.worker = worker
}

// Wait blocks until Signal is called (at once if it already was).
func (p *Parker) Wait() { p.sema.Wait() }

// Signal releases the goroutine in Wait. Call it exactly once.
func (p *Parker) Signal() { p.sema.Done() }

// Woken reports whether the wake of this Parker has been decided: Unpark
// has been or is about to be called. One atomic load; see QuickWake.
func (p *Parker) Woken() bool { return p.reason.Load() != 0 }

// QuickWake reports whether the core expects this wait to be answered
// within a few goroutine switches: a blocked channel operation, whose
// partner (a ping-pong, a request and its reply) often answers at once; see
// Spin. Waits on jobs (Join, Await, WaitAll, Sleep) are not hinted: their
// wake is a job's end or a timer, and spinning there slows the waker down.
func (p *Parker) QuickWake() bool { return p.quick }

// spinYields is how many times Spin yields the processor.
const spinYields = 3

// Spin gives a QuickWake wait a chance to be answered before the caller
// blocks or pays for compensation: it yields the processor up to 3 times
// while the wake has not come, then reports Woken. For other waits it only
// reports Woken. A partner that answers at once then costs goroutine
// switches instead of a sleep and a wake-up. A backend whose workers are
// locked to OS threads should not call it: a yield there hands the thread
// off (vcore's ChanPingPong went from 1.5 to 13 µs when it did).
//
// Measured with go test -run x -bench 'ChanPingPong|WaitersStorm' -count 10
// ./perf, with and without it (two A/B runs): ChanPingPong 1.0-1.2 µs ->
// 760-790 ns on the goroutine and stealing backends, WaitersStorm
// unchanged; spinning on every wait instead cost WaitersStorm 20-40%.
func (p *Parker) Spin() bool {
	for i := 0; p.quick && i < spinYields && !p.Woken(); i++ {
		runtime.Gosched()
	}
	return p.Woken()
}

// Worker reports whether the goroutine that parks is running a task of the
// executor (a job body, or a body run inline by one) rather than an outside
// goroutine such as the caller of Runtime.Run or an Await with a nil waiter.
func (p *Parker) Worker() bool { return p.worker }

// wake records reason and unparks the waiter if this call is the first wake.
// Exactly one wake wins; it reports whether this one did.
func (p *Parker) wake(ex Executor, reason uint32) bool {
	if !p.reason.CompareAndSwap(0, reason) {
		return false
	}
	ex.Unpark(p)
	return true
}
