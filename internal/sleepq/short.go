package sleepq

import (
	"runtime"
	"time"
)

// Short timers: a task that waits for one spins.
//
// A task that sleeps (Job.Sleep) or waits with a timeout arms a timer and
// then parks. Parked, it leaves its worker, and with no other work the
// process, idle: the timer's wake-up is then an OS sleep and wake-up (the
// netpoller's, then a futex wake for the worker it readies), tens of µs,
// however short the timer. A task that spins instead, yielding its P in a
// loop (runtime.Gosched), does better: Go runs due runtime timers at every
// scheduling decision of a P (checkTimers in findRunnable), and a shard's
// runtime timer, set a moment before by this goroutine, sits in the heap
// of its P, so the timer fires, and the wake comes, within a few goroutine
// switches of the due time. The P that Gosched may wake looks at the other
// Ps' timers too (the runtime's stealWork), which covers a shard whose
// runtime timer was already set on another P.
//
// So an executor notes the due time of a short timer (ShortDue) where the
// task's Park will find it, and Park waits for it spinning (AwaitShort)
// before it parks as usual. The spin is bounded: it stops when the wake
// comes, when work appears that the spinning task must not hold up (the
// executor's busy), or at the due time plus the budget, and a timer due
// later than the budget is never spun for (an idle runtime's long Sleep
// costs no CPU). A short wait so costs at most twice the budget of CPU, on
// a goroutine that yields at every look.

// epoch is the origin of Now's readings.
var epoch = time.Now()

// Now is the monotonic clock of the sleep queues and of short-timer
// waits, in ns since the package's start: a vDSO clock read, the clock of
// the runtime's timers, so a fire never comes before the deadline it was
// set for.
func Now() int64 { return int64(time.Since(epoch)) }

// ShortDue returns the Now reading at which a timer armed now for d is
// due, if d is within budget (a short timer, see above), else 0.
func ShortDue(d, budget time.Duration) int64 {
	if d > budget {
		return 0
	}
	return Now() + int64(d)
}

// ShortWait is how AwaitShort ended.
type ShortWait uint8

const (
	// ShortNone: no short timer (due 0), or one due farther than the
	// budget from now; nothing was waited for. The caller parks as usual.
	ShortNone ShortWait = iota

	// ShortWoken: the wake came while the caller spun; it need not park.
	ShortWoken

	// ShortBusy: busy reported work the spinning task must not hold up;
	// the caller parks as usual.
	ShortBusy

	// ShortLate: the spin outlasted the due time by the budget (the timer
	// fired late, or the wake the caller waits for is not the timer's);
	// the caller parks as usual.
	ShortLate
)

// AwaitShort waits, spinning, for a short timer due at due (a ShortDue
// reading; 0 for none): it yields the P (runtime.Gosched) at every look,
// until woken reports the wake, busy reports work the caller must not hold
// up, or Now passes due+budget. woken and busy are called on the caller's
// goroutine and do not escape.
func AwaitShort(due int64, budget time.Duration, woken, busy func() bool) ShortWait {
	if due == 0 || due-Now() > int64(budget) {
		return ShortNone
	}
	until := due + int64(budget)
	for !woken() {
		if busy() {
			return ShortBusy
		}
		if Now() > until {
			return ShortLate
		}
		runtime.Gosched()
	}
	return ShortWoken
}
