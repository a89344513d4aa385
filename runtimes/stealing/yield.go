package stealing

import (
	"runtime"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// Yield is kc.Yielder: Job.Yield calls it. On a loop coroutine with work
// queued behind it (a task in a ring or the injector, a ready coroutine),
// the coroutine goes to the back of the line, as spec 05's yield moves a
// fiber to the back of the run queue: it yields to its driver (msgYield),
// which puts it on the yield list and goes on with the worker loop on
// another coroutine, so the worker runs the queued work (a body that
// yields in a loop until its siblings have done something runs them
// instead of spinning). Drivers take the yield list after their own
// ring, the injector and a look at the other Ps' rings (findWork,
// beforeYielded), and on the fairness tick before them (findLocal), so a
// yielder is not starved by a stream of tasks.
// Elsewhere (no goroutine identities, not a loop coroutine, a goroutine
// locked to its thread) and with nothing queued, Yield is runtime.Gosched:
// it lets other goroutines run, as on a plain goroutine.
//
// A body that polls with Yield while nothing is queued waits for a task
// running on another worker, and Gosched keeps its thread busy. The OS
// may have put that worker's thread on the same CPU (two threads of the
// process runnable on one CPU while the other CPU idles or runs another
// process, until the kernel balances them, milliseconds later): the
// poller then takes the CPU's time slices while the task it waits for
// waits for the CPU. So once osYieldAfter Yields in a row of the same
// task have found nothing queued, each further such Yield also gives the
// thread up to the OS (goruntime.OSYield), as the Go runtime's spin waits do; a
// poller that waits for a task already running elsewhere loses nothing by
// it.
// The count (coro.idleYields) is reset when the coroutine starts a task,
// suspends or yields to the yield list.
func (e *Executor) Yield() {
	var c *coro
	if goruntime.GOK && !goruntime.LockedOSThread() {
		c = e.gt.lookup(goruntime.G())
	}
	if c != nil && e.anyWork() {
		c.idleYields = 0
		c.state = coroYielding
		if !c.yield(msgYield) {
			panic("stealing: a yielding coroutine was stopped")
		}
		return
	}
	runtime.Gosched()
	if c == nil {
		return
	}
	if c.idleYields < osYieldAfter {
		c.idleYields++
		return
	}
	goruntime.OSYield()
}

// yielded puts c, which yielded to its driver, on the yield list and wakes
// a worker for it, as ready does for a woken coroutine: the list's count
// is the publisher's half of the wake protocol's Dekker pair (anyWork
// counts it). After the push another driver may resume c at once.
func (e *Executor) yielded(c *coro) {
	c.setRnext(nil)
	c.n.Store(0) // the length is only read on slot heads
	c.state = coroReady
	e.yieldQ.push(c)
	e.wake()
}

// takeYielded returns the oldest yielded coroutine, or nil.
func (e *Executor) takeYielded() *coro {
	return e.yieldQ.pop()
}
