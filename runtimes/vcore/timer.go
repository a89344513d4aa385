package vcore

import (
	"runtime"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// Short timers: the owner waits for them spinning.
//
// A task that sleeps (Job.Sleep) or waits with a timeout arms a timer
// (AfterFunc) and then parks. Park's usual course hands the core off and
// blocks the goroutine; with no other work the process then goes idle, and
// the timer's wake-up is an OS sleep and wake-up (the netpoller's, then a
// futex wake for each goroutine readied), tens of µs on the machines we
// measured, however short the timer. A spinning owner does better: Go runs
// due timers at every scheduling decision of a P (its checkTimers), so a
// goroutine that yields its P in a loop (runtime.Gosched) has its timer
// fire, and its wake come, within a few goroutine switches of the due time.
//
// So AfterFunc, called by an owner for a timer due within the spin budget
// (Spin), notes the due time in the worker (worker.due), and Park, finding
// it, spins (awaitTimer) instead of handing the core off, as long as:
//   - the wake has not come (kc.Parker.Spin reports it);
//   - no work waits for the core (holdsWork: c's next slot or inbox, or the
//     global queue): a queued task is never held up by a spinning sleeper,
//     which then hands the core off as before;
//   - the core is still the worker's (sysmon may retake it);
//   - and the spin has not outlasted the due time by the spin budget.
//
// So a short wait costs at most twice the spin budget of CPU, on an
// unlocked goroutine that yields at every look; a timer due later than the
// budget (an idle runtime's long Sleep) is never spun for. Timers fire on
// time whatever the cores do: each shard of the sleep queue (internal/sleepq)
// is woken by a Go runtime timer, which a yielding spinner's P fires.
// Pinned owners, which stay locked, do not spin here: a yield on a locked
// thread hands the thread off, the very cost spinning avoids.
//
// worker.due is the owner goroutine's own (AfterFunc looks it up with
// registry.self, which returns only the caller's worker), so it needs no
// atomic. It names the timer the task armed last: Park consumes it, and
// runTask clears it, so a timer a task armed and never waited for (a
// WithTimeout whose body did not park) costs a later task's Park nothing.
// The timer a Park waits for may be another wait's (a WithTimeout's, whose
// firing cancels the body and so wakes the wait); the bound on the spin is
// the same either way.

// clockBase is the origin of mono's readings.
var clockBase = time.Now()

// mono is the monotonic clock, in ns since clockBase: a vDSO clock read.
func mono() int64 { return int64(time.Since(clockBase)) }

// AfterFunc calls f on a goroutine of its own after d, unless the Timer is
// stopped first, as time.AfterFunc does, but through the executor's sleep
// queue (internal/sleepq): an entry in the heap of the caller's P's shard, whose
// Stop is one CAS (see the package doc). It panics on a closed executor. An
// unpinned owner that arms a timer due within the spin budget notes its
// due time for Park (see above): a registry lookup and a clock read more,
// for short timers only.
func (e *Executor) AfterFunc(d time.Duration, f func()) kc.Timer {
	if regByG && d <= e.cfg.spin && !e.pin.on {
		if w := e.reg.self(); w != nil && w.role == roleOwner {
			w.due = mono() + int64(d)
		}
	}
	return e.sleepQ.AfterFunc(d, f)
}

// timerWait is how awaitTimer ended.
type timerWait uint8

const (
	// timerNone: the worker armed no timer due within the spin budget
	// since its task started or its last Park; Park hands off as before.
	timerNone timerWait = iota

	// timerWoken: the wake came while the owner spun; it kept its core.
	timerWoken

	// timerWork: work waits for the core (or the core was retaken): the
	// owner stopped spinning to hand the core off.
	timerWork

	// timerLate: the spin outlasted the due time by the spin budget (the
	// timer fired late, or the wake is not the timer's): Park hands off.
	timerLate
)

// awaitTimer is Park's wait for a short timer (see above), for w, an
// unpinned owner with its thread loosened. It consumes w.due. With
// timerWoken, w still owns its core (unless sysmon took it since the last
// look, which workerMain finds out once the body returns, as for any
// stuck body); otherwise Park hands the core off.
func (e *Executor) awaitTimer(w *worker, p *kc.Parker) timerWait {
	due := w.due
	w.due = 0
	if due == 0 || due-mono() > int64(e.cfg.spin) {
		return timerNone
	}
	until := due + int64(e.cfg.spin)
	c, me := w.core, mkword(w.id, coreRunning)
	for !p.Spin() {
		if e.holdsWork(c) || c.word.Load() != me {
			return timerWork
		}
		if mono() > until {
			return timerLate
		}
		runtime.Gosched()
	}
	e.stats.timerWaits.Add(1)
	return timerWoken
}
