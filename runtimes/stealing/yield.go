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
// ring and the injector (findWork), and on the fairness tick before them
// (findLocal), so a yielder is not starved by a stream of tasks.
// Elsewhere (no goroutine identities, not a loop coroutine, a goroutine
// locked to its thread) and with nothing queued, Yield is runtime.Gosched:
// it lets other goroutines run, as on a plain goroutine.
func (e *Executor) Yield() {
	if goruntime.GOK && e.anyWork() {
		if c := e.gt.lookup(goruntime.G()); c != nil && !goruntime.LockedOSThread() {
			c.state = coroYielding
			if !c.yield(msgYield) {
				panic("stealing: a yielding coroutine was stopped")
			}
			return
		}
	}
	runtime.Gosched()
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
