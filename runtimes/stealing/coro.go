package stealing

import (
	"fmt"
	"iter"
	"sync/atomic"
	"unsafe"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// coroState is where a loop coroutine is in its life. Its owner writes it:
// whoever resumed it (its driver, or the loop coroutine it runs nested
// under), or the coroutine itself while it runs, then the waker (Resume),
// whoever resumes it next, the pool; ownership passes with the hand-off
// that moves the coroutine (a coroutine switch, the Parker's hand-off
// word, a ready slot's atomics, the pool's mutex), so the field needs no
// atomics. Resume checks it (only a parked coroutine may be made ready),
// so a coroutine woken twice panics instead of running twice.
type coroState uint8

const (
	// coroRunning: a driver runs it (its loop, or a task body), resumed
	// by the driver's goroutine or nested under another of the driver's
	// loop coroutines (runNested). Moves to coroSuspending (Park),
	// coroYielding (Yield), coroIdle (it handed a ready coroutine to
	// whoever resumed it, or its driver leaves) or coroDead (a body's
	// Goexit).
	coroRunning coroState = iota
	// coroSuspending: it yielded from Park; whoever resumed it is about to
	// hand the Parker off (settle). Moves to coroParked (Suspend installed
	// it) or back to coroRunning (the wake came first: it is resumed at
	// once).
	coroSuspending
	// coroParked: installed as its Parker's Resumer, waiting for the wake;
	// nobody holds it but the Parker. Moves to coroReady (Resume).
	coroParked
	// coroReady: woken, in a ready slot's chain or the ready list, or
	// yielded, on the yield list. Moves to coroRunning (a driver resumes
	// it).
	coroReady
	// coroIdle: in the idle pool, stopped at its loop's yield between
	// tasks. Moves to coroRunning (a driver takes it) or coroDead (the
	// monitor trims it, or Close stops it).
	coroIdle
	// coroDead: its loop has returned and its goroutine is gone. Final.
	coroDead
	// coroYielding: a task body called Yield; it yielded to whoever
	// resumed it, which is about to put it on the yield list. Moves to
	// coroReady.
	coroYielding
)

var coroStateNames = [...]string{"running", "suspending", "parked", "ready", "idle", "dead", "yielding"}

func (s coroState) String() string {
	if int(s) < len(coroStateNames) {
		return coroStateNames[s]
	}
	return fmt.Sprintf("coroState(%d)", s)
}

// coroMsg is what a loop coroutine tells whoever resumed it (its driver's
// goroutine, or the loop coroutine it runs nested under) when it yields.
type coroMsg uint8

const (
	msgSuspend coroMsg = iota // a task body parked on c.park: hand the wait off
	msgSwitch                 // between tasks, a nested c found a ready coroutine (c.to) for the one it runs under to resume
	msgExit                   // the driver must stop running tasks (enough workers are idle already, or Close)
	msgYield                  // a task body yielded (Executor.Yield): put c on the yield list
)

// coro is a loop coroutine: an iter.Pull coroutine that runs the worker
// loop (runLoop) and the tasks it takes, on its own stack, for whichever
// driver resumes it. Its fields belong to its current owner (see
// coroState), except the atomic ones that others read while a taker may
// own it: n and rnext (ready, a popper of a chain) and sp (prefetch).
// Where coroutines run (goruntime.GOK), its size is a whole number of
// cache lines (TestCoroLines), so that the allocator's size class keeps
// each coro on lines of its own: drivers on different Ps write the fields
// of the coroutines they run, and a line shared by two would move between
// their cores at every task.
type coro struct {
	e     *Executor
	next  func() (coroMsg, bool) // iter.Pull's next: called by whoever resumes c (resume)
	stop  func()                 // iter.Pull's stop: called once c is idle, by the monitor or Close
	yield func(coroMsg) bool     // the seq's yield: called by c itself
	g     uintptr                // c's goroutine (goruntime.G), its key in Executor.gt
	drv   *worker                // the driver running c; written before each resume
	kw    kc.Worker              // releases of the parents of c's tasks (a task's run keeps a pointer to it, so it is c's, not the driver's)
	park  *kc.Parker             // the wait c yielded from (coroSuspending)
	to    *coro                  // the ready coroutine a nested c hands the one it runs under (msgSwitch)
	// link is the next coroutine in whichever list holds c, and that
	// list's owner or lock guards it: the idle pool or a driver's stash
	// (coroIdle), or the ready list, where c heads a chain (coroReady).
	// c is never on two of them at once.
	link *coro
	// rnext is the next in a ready chain (see readySlot). Atomic: a popper
	// may read it from a head a thief took meanwhile (see setRnext).
	rnext atomic.Pointer[coro]
	// n is the length of the ready chain c heads. Atomic: ready reads the
	// head of a slot's chain, which a taker may already have taken, run
	// and readied again elsewhere (then its CAS fails and the read value
	// is dropped).
	n     atomic.Int32
	state coroState
	// nested reports whether c was last resumed by a loop coroutine
	// (runNested) rather than by its driver goroutine: a nested c hands a
	// ready coroutine it finds to the one it runs under instead of resuming
	// it. Written by whoever resumes c, before the switch, and read by c
	// while it runs.
	nested bool
	// idleYields counts the Yields in a row of c's current task that found
	// nothing queued, up to osYieldAfter (see Executor.Yield). Only c
	// touches it, while it runs; it is reset when c starts a task, suspends
	// or yields to the yield list.
	idleYields uint8
	// sp is an address in the frame that made c's last suspend (parkCoro),
	// near where its resume returns first: a hint for prefetch, and
	// nothing else. The collector may move a parked coroutine's stack and
	// free the old one, so sp may be stale; a prefetch of it is then
	// wasted, never a fault. Written by c (parkCoro) and read by any
	// driver that holds a chain c is in, which a thief may take and resume
	// meanwhile. Any value read will do, so the store orders nothing; it
	// is atomic (StoreRelUintptr, a plain store on amd64) only so that
	// the race detector sees the two sides.
	sp atomic.Uintptr
	// due is the due time (mono) of the short timer c's current task armed
	// last, 0 if none (see timerwait.go). Only c touches it, while it runs:
	// AfterFunc sets it, Park consumes it, the worker loop clears it before
	// each task.
	due int64
}

// newCoro makes a loop coroutine, not yet started: the driver's first
// resume runs its loop from the top.
func (e *Executor) newCoro() *coro {
	c := &coro{e: e}
	c.next, c.stop = iter.Pull(c.body)
	return c
}

// body is the coroutine's function: it registers c's goroutine, then runs
// the worker loop, yielding to the driver whenever the loop returns; it
// ends when stop makes yield report false (c is idle then), or when a task
// body calls runtime.Goexit (its deferred call unregisters c; iter.Pull
// then ends the driver with Goexit too, whose deferred call gives the slot
// back).
func (c *coro) body(yield func(coroMsg) bool) {
	e := c.e
	c.yield = yield
	c.g = goruntime.G()
	e.gt.insert(c.g, c)
	defer func() {
		c.kw.Flush() // a Goexit in a body left the batch unflushed
		e.gt.remove(c.g)
		c.state = coroDead
		// A body that called Goexit with its thread locked: the coroutine's
		// exit is a switch to whoever resumed it, which throws unless the
		// lock is undone (see goruntime.UnlockOSThreadAll).
		goruntime.UnlockOSThreadAll()
	}()
	for {
		if !yield(e.runLoop(c)) {
			return
		}
	}
}

// suspend parks c on p: it yields to whoever resumed it, which hands the
// wait off (settle), and returns once a driver resumes it after the wake.
func (c *coro) suspend(p *kc.Parker) {
	c.park = p
	c.idleYields = 0
	c.state = coroSuspending
	if !c.yield(msgSuspend) {
		panic("stealing: a parked coroutine was stopped")
	}
}

// prefetchCoroLines is how many lines of the coroutine record prefetch
// asks for.
const prefetchCoroLines = 2

// prefetch starts loading what the resume of c will touch first, where
// the memory of a coroutine parked long ago has gone cold: its record,
// and its goroutine's g and stack (goruntime.PrefetchResume). A driver
// calls it for the coroutine it will resume after the one it is about to
// run (the next in a ready chain), so that the fills overlap that run.
// Prefetches read nothing and cannot fault, so neither a stale sp (a
// stack the collector moved) nor a chain that a thief took meanwhile does
// harm. Cost: three calls of a few prefetch instructions each.
func (c *coro) prefetch() {
	goruntime.PrefetchLines(uintptr(unsafe.Pointer(c)), prefetchCoroLines)
	goruntime.PrefetchResume(c.g, c.sp.Load())
}

// Resume is the kc.Resumer of a parked coroutine: the wake of its Parker
// calls it, on the waker's goroutine. It puts c in the ready slot of the
// waker's P (see Executor.ready).
func (c *coro) Resume() {
	if c.state != coroParked {
		panic("stealing: Resume of a coroutine that is " + c.state.String())
	}
	c.state = coroReady
	c.e.ready(c)
}

// parkCoro is Park's coroutine path: if the caller is one of e's loop
// coroutines, not locked to its thread, and the wait is a slow one, it
// suspends the coroutine until the wake and reports true. A wait for a
// short timer the task armed is first waited for spinning (awaitTimer,
// timerwait.go); if the wake comes meanwhile, the coroutine is never
// suspended.
func (e *Executor) parkCoro(p *kc.Parker) bool {
	if !goruntime.GOK || p.Quick() || !p.Worker() {
		return false
	}
	c := e.gt.lookup(goruntime.G())
	if c == nil || goruntime.LockedOSThread() {
		return false
	}
	if c.due != 0 && e.awaitTimer(c, p) {
		p.Wait() // woken while spinning: at most a short wait for the signal
		return true
	}
	var top byte // its address: where c's resume returns, for prefetch
	goruntime.StoreRelUintptr(&c.sp, uintptr(unsafe.Pointer(&top)))
	c.suspend(p)
	return true
}
