package stealing

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Short timers: the task waits for them spinning.
//
// A task that sleeps (Job.Sleep) or waits with a timeout arms a timer
// (AfterFunc) and then parks. Suspending its coroutine leaves the worker
// with nothing to do, so it spins and goes idle (idleWait), and with no
// other work the process goes idle too: the timer's wake-up is then an OS
// sleep and wake-up (the netpoller's, then a futex wake for the worker the
// wake starts), tens of µs on the machines we measured, however short the
// timer. A task that spins instead does better: the sleep queue's timers
// fire through runtime timers (one per shard, see internal/sleepq), and Go runs
// due runtime timers at every scheduling decision of a P (checkTimers in
// findRunnable), so a goroutine that yields its P in a loop has its timer
// fire, and its wake come, within a few goroutine switches of the due
// time.
//
// So AfterFunc, called on a loop coroutine for a timer due within
// timerSpin, notes the due time in the coroutine (coro.due), and Park,
// finding it, spins (awaitTimer) before it suspends the coroutine, as long
// as:
//   - the wake has not come (kc.Parker.Spin reports it);
//   - no work is queued anywhere (anyWork): a queued task or a ready
//     coroutine is never held up by a spinning sleeper, which then
//     suspends as before, and its driver goes on with the worker loop;
//   - and the spin has not outlasted the due time by timerSpin.
//
// So a short wait costs at most twice timerSpin of CPU, on a goroutine that
// yields at every look; a timer due later than timerSpin (a long Sleep) is
// never spun for. Timers fire on time as before, whatever the workers do.
//
// The spinning task holds its worker's running slot, as any task running
// on it does, and does not count as spinning (schedState.spinning): it
// looks for no work to steal, so a publisher that sees no spinner still
// wakes a worker if a slot is free, and the at-most-half rule bounds the
// workers that steal, not this wait. The wake protocol is unchanged: the
// slot is never given up while the task spins, and the task, once it stops
// (woken, or suspended because work appeared), goes on through the worker
// loop, which looks at every queue before the worker goes idle.
//
// The yield is runtime.Gosched, as in vcore's owners (and measured a
// little faster here than goyield, which keeps the spinner on its P's
// local run queue and wakes no idle P): the shard's runtime timer, set a
// moment before by this goroutine (a runtime timer that is not pending
// goes to the heap of the P that sets it), runs at the next scheduling
// decision of that P, and the P that Gosched may wake looks at the other
// Ps' timers too (the runtime's stealWork), so a runtime timer still
// pending in another P's heap (the shard had an earlier deadline) fires
// as well. A timer that fires late all the same ends the spin at
// due+timerSpin, and the task suspends.
//
// coro.due belongs to the coroutine's task, like the rest of the coroutine
// while it runs: AfterFunc finds the caller's own coroutine in the g table
// (a goroutine only ever finds itself), so it needs no atomic. It names
// the timer the task armed last: Park consumes it, and the worker loop
// clears it before each task, so a timer a task armed and never waited for
// (a WithTimeout whose body did not park) costs a later task's Park
// nothing. The timer a Park waits for may be another wait's (a
// WithTimeout's, whose firing cancels the body and so wakes the wait); the
// bound on the spin is the same either way.

// timerSpin is the spin budget of a short timer: a timer due within it is
// waited for spinning, for at most this long past its due time.
const timerSpin = 20 * time.Microsecond

// clockBase is the origin of mono's readings.
var clockBase = time.Now()

// mono is the monotonic clock, in ns since clockBase: a vDSO clock read.
func mono() int64 { return int64(time.Since(clockBase)) }

// timerStats counts the outcomes of awaitTimer, for tests. On a cache line
// of its own: a spinning task adds to it once per wait.
type timerStats struct {
	_      [64]byte
	woken  atomic.Int64 // waits whose wake came while the task spun
	handed atomic.Int64 // waits that stopped spinning and suspended (work appeared, or the spin ran late)
	_      [48]byte
}

// noteTimer records, for a timer due in d armed by a task on one of e's
// loop coroutines, its due time in the coroutine, if d is within the spin
// budget (see above). Cost: a g table probe and a clock read, for short
// timers only.
func (e *Executor) noteTimer(d time.Duration) {
	if d > e.timerSpin || !goruntime.GOK {
		return
	}
	if c := e.gt.lookup(goruntime.G()); c != nil {
		c.due = mono() + int64(d)
	}
}

// awaitTimer is Park's wait for a short timer (see above), for c, the
// caller's loop coroutine, which is not locked to its thread. It consumes
// c.due, and reports whether the wake came while the task spun (Park then
// waits out the signal on the goroutine, keeping the worker); otherwise
// Park suspends c as usual.
func (e *Executor) awaitTimer(c *coro, p *kc.Parker) bool {
	due := c.due
	c.due = 0
	if due == 0 || due-mono() > int64(e.timerSpin) {
		return false
	}
	until := due + int64(e.timerSpin)
	for !p.Spin() { // on a Parker that is not Quick, one load: has the wake come?
		if e.anyWork() || mono() > until {
			e.tstats.handed.Add(1)
			return false
		}
		runtime.Gosched()
	}
	e.tstats.woken.Add(1)
	return true
}
