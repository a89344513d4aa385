package vcore

import (
	"fmt"
	"iter"
	"sync/atomic"
	"unsafe"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Parked tasks are held as coroutines.
//
// Where goroutine identities work (goruntime.GOK) and owners are not pinned, an
// owner is not a goroutine but a task context (ctx): an iter.Pull coroutine
// that runs owner stints (workerMain) on its own stack, resumed by a driver
// goroutine. A task that parks in a kc wait yields to whoever resumed its
// context, which suspends the context, stack and all (kc.Parker.Suspend), and
// then goes on at once with another context for the core: a ready one that the
// core's ready queue holds (granted the core), else a fresh owner when work
// waits, else none (the core goes Free and the driver to the pool of idle
// goroutines). A wake that comes before the suspend leaves the context its
// core: it goes on at once. The wake (Resume) puts the context on the ready
// queue of the core it parked on (spec 05's soft affinity) and kicks that core;
// the owner that takes it hands it its core, ending its stint, and runs it
// itself, nested (driveNested): when the woken task parks again, that owner's
// context is the core's fresh owner, on its own stack, with one coroutine
// switch each way instead of two through the driver. Contexts run nested never
// run one themselves, so nesting is one deep; the driver takes an idle
// context for the fresh owner otherwise. So a parked task costs a suspended
// coroutine, not a blocked goroutine, and its resume is a push and a pop and
// one or two coroutine switches on an owner's thread, not a pass through Go's
// scheduler; the owner prefetches the next context of the queue as it resumes
// one (as the stealing backend does, and for the same reason: the memory of a
// task parked long ago is cold).
//
// A coroutine made on a locked thread can only ever be resumed on that thread
// (the runtime throws otherwise), and a switch away from a locked goroutine
// throws as well. So contexts are made only on unlocked goroutines (drivers),
// drivers never lock, and a context locks its thread while it runs a task
// (workerMain, as every owner) and unlocks before every switch. A body that
// holds a thread lock of its own when it parks cannot be suspended: it parks as
// a goroutine (release, Wait, reacquire), its driver blocked with it, as a
// Quick wait (a channel partner) does after its spin.

// ctxState is where a task context is in its life. Its owner writes it:
// the driver that runs it or the context itself while it runs; then, parked,
// its Parker's waker (Resume); ready, whoever pops it from a ready queue
// (under that queue's lock) and the driver it is handed to; idle, the pool
// (under its lock). Ownership passes with the hand-off that moves the
// context (a coroutine switch, the Parker's hand-off word, a queue's or the
// pool's mutex), so the field needs no atomics. It is checked at each
// hand-off, so a context resumed twice or run while parked panics instead
// of running twice.
type ctxState uint8

const (
	// ctxRunning: a driver runs it, resumed by the driver's goroutine or
	// nested under another of its contexts (driveNested). Moves to
	// ctxParking (Park yields) or ctxIdle (its owner stint ended and it is
	// pooled), or ctxDead (a body's Goexit ends its goroutine).
	ctxRunning ctxState = iota
	// ctxParking: it yielded from Park; whoever resumed it is about to
	// suspend it on the Parker (step). Moves to ctxParked (step's next
	// state, stored before Suspend installs it).
	ctxParking
	// ctxParked: installed as its Parker's Resumer, waiting for the wake;
	// nobody holds it but the Parker. Moves to ctxReady (Resume; or step,
	// when Suspend failed because the wake came first).
	ctxParked
	// ctxReady: woken, on a core's ready queue or on its way to a driver
	// with a core granted. Moves to ctxRunning.
	ctxReady
	// ctxIdle: in a driver's stash or the pool, stopped at its loop's
	// yield between owner stints. Moves to ctxRunning (a driver takes it)
	// or ctxDead (sysmon trims it, or the pool is closed, and its
	// coroutine is stopped).
	ctxIdle
	// ctxDead: its coroutine has returned and its goroutine is gone. Final.
	ctxDead
)

var ctxStateNames = [...]string{"running", "parking", "parked", "ready", "idle", "dead"}

func (s ctxState) String() string {
	if int(s) < len(ctxStateNames) {
		return ctxStateNames[s]
	}
	return fmt.Sprintf("ctxState(%d)", s)
}

// ctxMsg is what a context tells whoever resumed it (its driver's
// goroutine, or the context it runs nested under) when it yields.
type ctxMsg uint8

const (
	msgPark ctxMsg = iota // a task body parked on park: suspend the context, then pass its core on (home)
	msgDone               // the owner stint ended: stash the context, then run to (nil: none)
)

// ctx is a task context: an owner that is a coroutine (see above). w comes
// first, so that the registered worker of a context leads back to it
// (ctxOf). Its fields belong to its current owner (see ctxState), but sp
// and g, which a driver that pops the context from a ready queue reads for
// a prefetch (see prefetch). The size is a whole number of cache lines
// (TestCtxLines), so that contexts run by different cores' owners share
// no line.
type ctx struct {
	w     worker
	e     *Executor
	next  func() (ctxMsg, bool) // iter.Pull's next: called by whoever resumes it (step)
	stop  func()                // iter.Pull's stop: called once it is idle, by whoever drops it
	yield func(ctxMsg) bool     // the seq's yield: called by the context itself
	g     uintptr               // its goroutine (goruntime.G), for prefetch
	park  *kc.Parker            // the wait it yielded from (msgPark)
	to    *ctx                  // the ready context its owner stint handed its core to (switchTo): run by it (driveNested), or, if it runs nested, by whoever resumed it (msgDone)
	d     *stash                // its driver's stash while it runs (step), for driveNested
	grant *core                 // the core it owns when it next runs (its owner stint starts, or Park returns, owning it); nil: it has none
	home  *core                 // the core it parked on: the one step passes on, and the ready queue Resume puts it on
	link  *ctx                  // the next in whichever list holds it: a ready queue or the pool
	// sp is an address in the frame of its last suspend (parkCtx), near
	// where its resume returns first: a hint for prefetch, and nothing
	// else (a stale value, the collector having moved the stack, only
	// wastes the prefetch). Written by the context, read by a driver
	// that pops it; atomic only so that the race detector sees both sides.
	sp    atomic.Uintptr
	state ctxState
	// nested reports whether it was resumed by another context
	// (driveNested) rather than by its driver goroutine: a nested context
	// whose owner stint hands its core to a ready one leaves that one to
	// the context it runs under (via to) instead of running it. Written by
	// whoever resumes it, before the switch (step).
	nested bool
	// ended counts the tasks this context ran to their end since it last
	// took them off active_tasks (flushEnded): a context batches that
	// decrement, which every task's end would otherwise make on a line all
	// cores write, until it stops running tasks (its owner stint ends, it
	// runs out of work, it exits). The tasks still count as active
	// meanwhile, which only delays Close's drain and sysmon's rest until
	// then; a context that never runs out of work flushes every
	// maxEnded tasks, so the count cannot wrap. Only the context touches
	// it.
	ended int32
	_     [ctxPad]byte
}

// endOne counts the end of a task t ran (runTask).
func (t *ctx) endOne() {
	if t.ended++; t.ended >= maxEnded {
		t.e.flushEnded(t)
	}
}

// maxEnded bounds ctx.ended, far below where an int32 wraps (a wrapped
// count would add 2^31 tasks to active_tasks, and Close would wait for
// ever).
const maxEnded = 1 << 20

// flushEnded takes the tasks t ran to their end off active_tasks (see
// ctx.ended), as taskDone does for one.
func (e *Executor) flushEnded(t *ctx) {
	if n := t.ended; n != 0 {
		t.ended = 0
		e.tasksDone(int64(n))
	}
}

// ctxPad rounds ctx up to a whole number of cache lines on 64-bit
// platforms (TestCtxLines checks it where contexts run): the worker, twelve
// words, state and nested, two bytes of alignment, ended.
const ctxPad = 192 - 64 - 12*8 - 2 - 2 - 4

// ctxOf returns the context whose worker w is; w.isCtx must hold.
func ctxOf(w *worker) *ctx { return (*ctx)(unsafe.Pointer(w)) }

// newCtx makes a context, not yet started: its first resume runs its loop
// from the top. The caller must not be locked to its thread (see above).
func (e *Executor) newCtx() *ctx {
	t := &ctx{e: e, state: ctxIdle}
	t.w.isCtx = true
	t.next, t.stop = iter.Pull(t.body)
	e.wg.Add(1) // its goroutine; done when body returns
	return t
}

// body is the context's coroutine: for each owner stint it is given (its
// worker already started under the owner's id, grant the core), it runs
// workerMain, then yields msgDone. It ends when stop makes yield report
// false (it is idle then), or when a task body calls runtime.Goexit
// (workerMain's deferred exit passes the core on; iter.Pull then ends
// whoever resumed it with Goexit too: the driver, or the context it ran
// nested under, between two owner stints, and then the driver).
func (t *ctx) body(yield func(ctxMsg) bool) {
	e := t.e
	t.yield = yield
	t.g = goruntime.G()
	defer func() {
		t.state = ctxDead
		// A body that called Goexit with its thread locked: the coroutine's
		// exit is a switch to whoever resumed it, which throws unless the
		// lock is undone (see goruntime.UnlockOSThreadAll).
		goruntime.UnlockOSThreadAll()
		e.wg.Done()
	}()
	for {
		c := t.grant
		t.grant = nil
		e.workerMain(&t.w, c)
		goruntime.UnlockOSThreadAll() // a body's own thread lock would make the switch throw
		if r := t.to; r != nil && !t.nested {
			// The stint handed its core to a ready context: run it here
			// (driveNested), and own the core again once it parks.
			t.to = nil
			if e.driveNested(t, r) {
				continue
			}
		}
		if !yield(msgDone) {
			return
		}
	}
}

// prefetchCtxLines is how many lines of the context record prefetch asks
// for.
const prefetchCtxLines = 3

// prefetch starts loading what the resume of t will touch first; an owner
// calls it for the context it will resume after the one it is about to
// run. It only issues prefetches (goruntime.PrefetchLines), which read
// nothing and cannot fault, so a stale sp or g does no harm.
func (t *ctx) prefetch() {
	goruntime.PrefetchLines(uintptr(unsafe.Pointer(t)), prefetchCtxLines)
	goruntime.PrefetchResume(t.g, t.sp.Load())
}

// Resume is the kc.Resumer of a parked context: the wake of its Parker
// calls it, on the waker's goroutine. It puts t on the ready queue of the
// core it parked on and makes sure an owner will look (kick).
func (t *ctx) Resume() {
	if t.state != ctxParked {
		panic("vcore: Resume of a context that is " + t.state.String())
	}
	t.state = ctxReady
	c := t.home
	c.ready.push(t)
	t.e.kick(c)
}

// parkCtx is Park's path for an owner that is a context: it yields to
// whoever resumed it, still owning its core, which suspends it and passes
// the core on (step); it returns, once resumed, owning the core it was
// granted (its own again, if the wake came before the suspend), or else
// after reacquire. The caller has loosened w's thread, and nothing else
// holds it locked.
func (e *Executor) parkCtx(t *ctx, p *kc.Parker) {
	w := &t.w
	c := w.core
	e.stats.handoffs.Add(1)
	e.unlock(w)
	w.role = roleParked
	t.home = c
	t.park = p
	var top byte // its address: where the resume returns, for prefetch
	goruntime.StoreRelUintptr(&t.sp, uintptr(unsafe.Pointer(&top)))
	t.state = ctxParking
	if !t.yield(msgPark) {
		panic("vcore: a parked context was stopped")
	}
	if g := t.grant; g != nil {
		t.grant = nil
		e.lock(w, g)
		return
	}
	// A fresh id, as in switchTo: the driver that suspended t compares c's
	// word with t's old id when it passes c on, which may still be to come.
	w.id.Store(e.newID())
	e.reacquire(w, c)
}
