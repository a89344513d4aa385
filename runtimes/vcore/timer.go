package vcore

import (
	"time"

	"github.com/kcbench/kcbench/internal/sleepq"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Short timers: the owner waits for them spinning (see internal/sleepq's
// short.go for why and for the bounds of the spin).
//
// AfterFunc, called by an owner for a timer due within the spin budget
// (Spin), notes the due time in the worker (worker.due), and Park, finding
// it, spins (awaitTimer) instead of handing the core off. Here "busy" is
// work waiting for the core (holdsWork: its next slot or inbox, or the
// global queue), which a spinning sleeper must not hold up, or the core no
// longer being the worker's (sysmon may retake it); the owner then hands
// the core off as before. Handed off instead, the core would leave the
// process idle with no other work. Pinned owners, which stay locked, do
// not spin here: a yield on a locked thread hands the thread off, the very
// cost spinning avoids.
//
// worker.due is the owner goroutine's own (AfterFunc looks it up with
// registry.self, which returns only the caller's worker), so it needs no
// atomic. It names the timer the task armed last: Park consumes it, and
// runTask clears it, so a timer a task armed and never waited for (a
// WithTimeout whose body did not park) costs a later task's Park nothing.
// The timer a Park waits for may be another wait's (a WithTimeout's, whose
// firing cancels the body and so wakes the wait); the bound on the spin is
// the same either way.

// AfterFunc calls f on a goroutine of its own after d, unless the Timer is
// stopped first, as time.AfterFunc does, but through the executor's sleep
// queue (internal/sleepq): an entry in the heap of the caller's P's shard,
// whose Stop is one CAS. It panics on a closed executor. An
// unpinned owner that arms a timer due within the spin budget notes its
// due time for Park (see above): a registry lookup and a clock read more,
// for short timers only.
func (e *Executor) AfterFunc(d time.Duration, f func()) kc.Timer {
	if regByG && d <= e.cfg.spin && !e.pin.on {
		if w := e.reg.self(); w != nil && w.role == roleOwner {
			w.due = sleepq.ShortDue(d, e.cfg.spin)
		}
	}
	return e.sleepQ.AfterFunc(d, f)
}

// awaitTimer is Park's wait for a short timer (see above), for w, an
// unpinned owner with its thread loosened. It consumes w.due. With
// ShortWoken, w still owns its core (unless sysmon took it since the last
// look, which workerMain finds out once the body returns, as for any
// stuck body); otherwise Park hands the core off.
func (e *Executor) awaitTimer(w *worker, p *kc.Parker) sleepq.ShortWait {
	due := w.due
	w.due = 0
	if due == 0 {
		return sleepq.ShortNone // every Park without a short timer: nothing more
	}
	c, me := w.core, mkword(w.id.Load(), coreRunning)
	busy := func() bool { return e.holdsWork(c) || c.word.Load() != me }
	r := sleepq.AwaitShort(due, e.cfg.spin, p.Spin, busy)
	if r == sleepq.ShortWoken {
		e.stats.timerWaits.Add(1)
	}
	return r
}
