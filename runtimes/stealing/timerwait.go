package stealing

import (
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/internal/sleepq"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Short timers: the task waits for them spinning (see internal/sleepq's
// short.go for why and for the bounds of the spin).
//
// AfterFunc, called on a loop coroutine for a timer due within timerSpin,
// notes the due time in the coroutine (coro.due), and Park, finding it,
// spins (awaitTimer) before it suspends the coroutine. Here "busy" is any
// queued work (anyWork): a queued task or a ready coroutine is never held
// up by a spinning sleeper, which then suspends as before, and its driver
// goes on with the worker loop. Suspended instead, the task would leave
// its worker nothing to do, so it would go idle (idleWait), and the
// process with it.
//
// The spinning task holds its worker's running slot, as any task running
// on it does, and does not count as spinning (schedState.spinning): it
// looks for no work to steal, so a publisher that sees no spinner still
// wakes a worker if a slot is free, and the at-most-half rule bounds the
// workers that steal, not this wait. The wake protocol is unchanged: the
// slot is never given up while the task spins, and the task, once it stops
// (woken, or suspended because work appeared), goes on through the worker
// loop, which looks at every queue before the worker goes idle. The yield
// is runtime.Gosched, not goyield, which keeps the spinner on its P's local
// run queue and wakes no idle P, so a P that could fire the timer stays
// asleep (measured slower: `kcbench gate -bench SleepWake` against a build
// with goyield).
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
		c.due = sleepq.ShortDue(d, e.timerSpin)
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
	switch sleepq.AwaitShort(due, e.timerSpin, p.Spin, e.anyWork) { // p.Spin, not Quick: one load, has the wake come?
	case sleepq.ShortWoken:
		e.tstats.woken.Add(1)
		return true
	case sleepq.ShortBusy, sleepq.ShortLate:
		e.tstats.handed.Add(1)
	}
	return false
}
