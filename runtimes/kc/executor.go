package kc

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// Executor is what a backend implements: where job bodies run, how a blocked
// task waits, timers, and shutdown. The semantics (the job tree,
// cancellation, results, who wakes whom) live in this package and are the
// same for every backend. A backend implements these four methods and calls
// back into the core through Task (Run, or RunOn with a Worker of its own,
// and Finished), Worker (Flush) and Parker (Wait, and the hints Worker and
// Spin); nothing else. runtimes/goroutine is the short reference.
//
// All methods must be safe for concurrent use.
type Executor interface {
	// Spawn arranges for t.Run (or t.RunOn) to be called once, on some
	// goroutine, soon. It never blocks the caller and never runs t on the
	// caller's stack: the caller is a Launch, Async or Run, which returns
	// before the new body runs, so that a body that blocks cannot block
	// the job that launched it (or the core, handing work that must not
	// run on its caller to a task of its own, such as the OnCancel
	// callbacks a cancel walk claimed). Spawn after Close is a bug in the
	// core and may panic.
	Spawn(t *Task)

	// Park blocks the calling goroutine until the core wakes p: it must
	// call p.Wait exactly once, and return only after it has returned, or,
	// where the caller is a coroutine the executor can switch away from,
	// hand the wait off with p.Suspend and return only once the waiter has
	// been resumed (see Resumer).
	// Around it, it may do its own bookkeeping: give up a worker slot and
	// compensate for the blocked worker (p.Worker tells whether the caller
	// runs a task of this executor), take a slot back after the wake. The
	// wake may come before Park is called; Wait then returns at once.
	Park(p *Parker)

	// AfterFunc calls f once, on some goroutine, after d, unless the
	// returned Timer is stopped first. *time.Timer satisfies Timer. A
	// second call of f, or a Stop that reports true after f was called,
	// breaks the contract: the core ignores it, and Runtime.Close returns
	// an error matching ErrBrokenExecutor.
	AfterFunc(d time.Duration, f func()) Timer

	// Close waits until every spawned task has returned from Run and every
	// goroutine the executor started has exited: no goroutine of the
	// executor outlives Close. The core calls it once, after every job is
	// terminal and every timer stopped or fired.
	Close() error
}

// Yielder is an optional Executor method. Job.Yield calls it, instead of
// runtime.Gosched, to let other work run before the body goes on: an
// executor that runs many tasks on one goroutine (or coroutine) may run
// tasks queued behind the caller first, as spec 05's yield moves the fiber
// to the back of the run queue. Yield may be called from any goroutine
// (a body, or a goroutine a body started); it must return, soon, on the
// goroutine that called it, and must not block waiting for another task.
type Yielder interface {
	Yield()
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call if it has not started; it reports whether it did.
	Stop() bool
}

// Task is the executor's view of a job: a body to run. The only things an
// executor does with a *Task are hold it in a queue, call Run (or RunOn)
// once, and ask whether it is Finished. Task has the same memory layout as
// Job, so handing one to an executor costs nothing.
type Task Job

// Run runs the job's body to completion on the calling goroutine, then
// performs the job's end-of-body transition. If the body was already claimed
// (an awaiting job ran it inline), Run returns at once: an executor may keep
// stale queue entries and need not remove them.
//
// Run recovers panics from the body (they fail the job). A body that calls
// runtime.Goexit fails its job with ErrGoexit and then ends the calling
// goroutine, as Goexit does. The executor must survive that: a goroutine
// that runs tasks keeps its bookkeeping in deferred calls (count the task
// done, Flush its Worker, start a replacement worker), since code after Run
// does not run.
func (t *Task) Run() {
	j := (*Job)(t)
	if j.claim() {
		j.run(nil)
	}
}

// RunOn is Run for a goroutine that runs many tasks: it batches the
// releases of their parents in w (see Worker), flushing w first if t is not
// a child of the parent w holds releases for. Goexit ends the goroutine as
// it does in Run, with w possibly holding a batch: Flush it in a deferred
// call.
func (t *Task) RunOn(w *Worker) {
	j := (*Job)(t)
	if w.owed != nil && (j.parent != w.owed || !j.attached()) {
		w.Flush()
	}
	if j.claim() {
		w.run = j
		j.run(w)
		w.run = nil
	}
}

// Finished reports whether the task's job is terminal (so Run would return
// at once: a stale queue entry). One atomic load: unlike Job.State, which
// may take locks to record a parent's cancellation, it never blocks, so an
// executor may call it in a pinned section or under a spinlock.
func (t *Task) Finished() bool { return (*Job)(t).terminal() }

// Parker is a one-shot wake-up for one blocked goroutine: the core
// allocates one per blocking wait, hands it to Executor.Park, and wakes it
// exactly once, from whichever goroutine wins the wake (the awaited job's
// end, a channel counterpart, the waiter's cancellation, a timer). The
// executor's part is Park calling Wait, or handing the wait off with Suspend;
// the wake itself is the core's, and never blocks, so a backend's only hook
// on the waker's side is the Resumer it gives Suspend. Worker, Quick, Batch
// and the spins are hints for Park's bookkeeping.
//
// The zero Parker is not ready for use; the core prepares every Parker it
// hands to an executor.
type Parker struct {
	// sema has count 1 until signal: Wait blocks on it where directPark is
	// false (race builds). Elsewhere Wait parks through hand and g, and
	// sema is an empty struct.
	sema parkSema

	// reason is the wake reason, 0 until the first wake. Written once by CAS
	// (the winner then calls signal); read by the woken goroutine after
	// Wait returns, which signal's release (the hand-off word's swap, or the
	// WaitGroup) orders after the CAS, and by Spin before (an atomic load:
	// it may race with the CAS).
	reason atomic.Uint32
	worker bool // immutable after init: see Worker
	quick  bool // immutable after init: the wake usually comes at once (see Spin)
	// batch is set, with quick, for a channel wait whose partner answers
	// only after a run of operations of its own (see Batch). Written by
	// the waiting goroutine before the wait is published, like quick.
	batch bool
	// arm tells Wait to register the cancel hook of the channel wait whose
	// Parker p is (the first field of a chanWaiter) before it blocks (see
	// chanWaiter.arm). A flag in padding, not a pointer, keeps every job
	// wait node at its size class. Set and read by the waiting goroutine.
	arm bool

	// hand is the hand-off word (a handState, see handoff.go): Wait (its
	// commit), Suspend and signal race on it with atomics. res is the
	// Resumer Suspend installs, and g the goroutine Wait parked: each
	// written before the CAS that publishes it, read by signal after its
	// swap has seen that CAS.
	hand atomic.Uint32
	res  Resumer
	g    uintptr // the parked goroutine's runtime g (see goruntime.Park)
}

// Wake reasons stored in Parker.reason. Zero means "not woken yet".
const (
	wakeDone    uint32 = iota + 1 // the awaited condition holds
	wakeCancel                    // the waiting job was cancelled
	wakeTimeout                   // the wait's own timer fired
)

// init prepares p for one wait. A channel's own wait node calls it
// again for each wait, after the previous wake's last touch of p (see
// signal), so the plain stores here race with nothing.
func (p *Parker) init(worker bool) {
	if directPark {
		// Every Parker comes here zeroed (fresh, or reset by whichever
		// cache reuses it: putOp, freeWaiter, putChanWaiter), so the load
		// spares a locked store; the store is there for one that is not.
		if p.hand.Load() != handWaiting {
			p.hand.Store(handWaiting)
		}
	} else {
		p.sema.Add(1)
	}
	p.worker = worker
}

// Wait blocks until the core wakes p (at once if it already has). Park
// calls it exactly once, on the waiting goroutine. For a channel wait it
// first registers the waiting job's cancel hook, unless the wake has come
// (see chanWaiter.arm): a spin before Wait runs without it.
func (p *Parker) Wait() {
	if p.arm {
		(*chanWaiter)(unsafe.Pointer(p)).arm() // p is its first field
	}
	if directPark {
		p.parkDirect()
		return
	}
	p.sema.Wait()
}

// woken reports whether the wake of p has been decided (signal has been or
// is about to be called). One atomic load.
func (p *Parker) woken() bool { return p.reason.Load() != 0 }

// spinYields is how many times Spin yields the processor.
const spinYields = 3

// Spin gives a wait that the core expects to be answered within a few
// goroutine switches (a blocked channel operation, whose partner in a
// ping-pong or a request and its reply often answers at once) a chance to
// be woken before the caller blocks or pays for compensation: it yields the
// processor up to 3 times while the wake has not come. It reports whether
// the wake has come; Park must still call Wait. Waits on jobs (Join, Await,
// WaitAll, Sleep) do not spin: their wake is a job's end or a timer, and
// spinning there takes the processor from the waker, so Spin on them only
// reports the wake. Whether a spin pays is measured by an A/B gate of a
// build without it, on the workloads it touches:
//
//	go run ./cmd/kcbench gate -base <ref> -bench 'ChanPingPong|Select|WaitersStorm'
//
// Never call Spin on a goroutine locked to its OS thread (LockOSThread): a
// yield there hands the thread off, which costs tens of microseconds
// instead of a goroutine switch (vcore unlocks first).
func (p *Parker) Spin() bool { return p.spin(runtime.Gosched, spinYields) }

// spinLocalYields is how many times SpinLocal yields the processor.
const spinLocalYields = 1

// SpinLocal is Spin with the runtime's goyield (goruntime.Yield) for a
// yield instead of runtime.Gosched, and a single yield: the yielder goes
// to the back of its P's local run queue, not to the global one, so a
// yield takes no scheduler lock and wakes no idle P, and the partner
// (readied into this P's next slot by its wake, or yielding here itself)
// runs next on this P. A ping-pong thus stays on one P, as with Go's
// channels, instead of passing through the global queue, where a woken
// idle P could take either side.
//
// One yield, not Spin's three: while a yielder waits in the local run
// queue, an idle P's spinning thread may steal it (the Go runtime steals a
// run queue at once, and only the next slot after a pause), and then the
// two sides of a ping-pong run on two Ps, each yielding on an empty queue
// while the other answers from the other core. A second and third yield
// keep such a split pair spinning across the cores; parking after one lets
// the partner's wake ready the waiter into the partner's own next slot,
// which puts the pair back on one P. On one P the partner answers within
// the first yield in the common case.
// The stealing backend's Park uses it.
func (p *Parker) SpinLocal() bool { return p.spin(goruntime.Yield, spinLocalYields) }

// SpinBatch is SpinLocal for a Batch wait: a single yield too, but through
// runtime.Gosched, as Spin yields. The stealing backend's Park uses it.
func (p *Parker) SpinBatch() bool { return p.spin(runtime.Gosched, spinLocalYields) }

// spin is Spin, SpinLocal and SpinBatch, with yield for a yield of the
// processor, at most n times.
func (p *Parker) spin(yield func(), n int) bool {
	for i := 0; p.quick && i < n && !p.woken(); i++ {
		yield()
	}
	return p.woken()
}

// Batch reports whether p is a channel wait on a buffered channel (a Send
// on a full buffer, a Recv on an empty one, a Select with a case on a
// buffered channel): its partner usually answers within a few goroutine
// switches, as for any quick wait, but only after a run of its own
// operations (it fills or drains the buffer first), not at once as the
// partner of a rendezvous does. An executor may spin differently for such
// a wait (see the stealing backend's Park). Only a Quick wait is a batch one.
func (p *Parker) Batch() bool { return p.batch }

// Worker reports whether the wait is made on behalf of a job (a non-nil
// waiter), which is how the core tells a task of the executor (a job body,
// or a body run inline by one) from an outside goroutine such as the
// caller of Runtime.Run or an Await with a nil waiter. A plain goroutine
// that a body started and that waits on behalf of its job reports true
// too. A backend with a fixed set of workers compensates only where it is
// true (for such a goroutine it then adds a worker it did not need).
func (p *Parker) Worker() bool { return p.worker }

// wake records reason and signals the waiter if this call is the first wake.
// Exactly one wake wins; it reports whether this one did.
func (p *Parker) wake(reason uint32) bool {
	if !p.reason.CompareAndSwap(0, reason) {
		return false
	}
	p.signal()
	return true
}
