package vcore

import (
	"sync/atomic"
	"time"
)

// Sysmon timing. It polls every sysmonMin while tasks are queued, backs off
// to sysmonMax while they are not, and blocks (no timer, no CPU) once
// nothing has been active for sysmonIdle.
const (
	sysmonMin  = 250 * time.Microsecond // spec 05 SYSMON_CHECK_US
	sysmonMax  = 8 * time.Millisecond
	sysmonIdle = 20 * time.Millisecond
)

// sysmon is the monitor's shared state. The monitor goroutine itself keeps
// the rest (last retake, per-core views in core.seen*). The zero sysmon has
// nil channels (kick would block forever); call init.
type sysmon struct {
	// idle is true while the monitor is (about to be) blocked on wakec.
	// Spawn's 0 -> 1 transition of active CASes it to false and sends a
	// token; the monitor stores true, then re-loads active (Dekker pair
	// with Spawn's add-then-load), and cancels its sleep with the same CAS
	// if it sees work, so exactly one side owns the token.
	idle  atomic.Bool
	wakec chan struct{} // capacity 1
	quitc chan struct{} // closed by Close
}

func (m *sysmon) init() {
	m.idle.Store(true) // the monitor starts asleep
	m.wakec = make(chan struct{}, 1)
	m.quitc = make(chan struct{})
}

// kick wakes the monitor if it sleeps. A load and, rarely, a CAS and a send.
func (m *sysmon) kick() {
	if m.idle.Load() && m.idle.CompareAndSwap(true, false) {
		m.wakec <- struct{}{}
	}
}

func (m *sysmon) quit() { close(m.quitc) }

// monSleep blocks until kick or quit; it reports false on quit. While
// idle contexts are pooled it wakes for their trims (trimIfDue) meanwhile.
// A pool found empty is not looked at again until a kick: a context whose
// owner stint was ending as the last task did (a retaken or stopping one)
// can still go idle after that, and then waits for the trims that follow
// the next kick (it is stopped at Close at the latest).
func (e *Executor) monSleep(lastTrim *time.Time) bool {
	if testHookMonSleep != nil {
		testHookMonSleep()
	}
	m := &e.mon
	m.idle.Store(true)
	if e.active.Load() != 0 && m.idle.CompareAndSwap(true, false) {
		return true
	}
	for e.ctxs.size() != 0 {
		t := time.NewTimer(max(trimEvery-time.Since(*lastTrim), time.Millisecond))
		select {
		case <-m.wakec:
			t.Stop()
			return true
		case <-m.quitc:
			t.Stop()
			return false
		case <-t.C:
			e.trimIfDue(time.Now(), lastTrim)
		}
	}
	select {
	case <-m.wakec:
		return true
	case <-m.quitc:
		return false
	}
}

// trimIfDue trims the idle context pool if trimEvery has passed since the
// last trim (*last, which then moves to now). Sysmon only.
func (e *Executor) trimIfDue(now time.Time, last *time.Time) {
	if now.Sub(*last) >= trimEvery {
		*last = now
		e.ctxs.trim()
	}
}

// sysmon is spec 05's monitor: the goroutine that runs tick every
// sysmonMin to sysmonMax and sleeps while nothing is active. It runs
// unlocked.
func (e *Executor) sysmon() {
	defer e.wg.Done()
	m := &e.mon
	select { // asleep until the first Spawn
	case <-m.wakec:
	case <-m.quitc:
		return
	}
	var idleSince time.Time
	var ts tickState
	delay := sysmonMin
	t := time.NewTimer(delay)
	defer t.Stop()
	for {
		select {
		case <-m.quitc:
			return
		case <-t.C:
		}
		now := time.Now()
		if e.active.Load() == 0 {
			if idleSince.IsZero() {
				idleSince = now
			} else if now.Sub(idleSince) >= sysmonIdle {
				if !e.monSleep(&ts.lastTrim) {
					return
				}
				for i := range e.cores { // heartbeats seen before the sleep are stale news
					e.cores[i].seenAt = time.Time{}
				}
				idleSince, delay = time.Time{}, sysmonMin
				t.Reset(delay)
				continue
			}
		} else {
			idleSince = time.Time{}
		}
		e.trimIfDue(now, &ts.lastTrim)
		did := e.tick(now, &ts)
		if did || !e.queuesEmpty() {
			delay = sysmonMin
		} else {
			delay = min(2*delay, sysmonMax)
		}
		t.Reset(delay)
	}
}

// tickState is what sysmon keeps from one tick to the next, besides the
// per-core views in core.seen*. Only the sysmon goroutine touches it.
type tickState struct {
	lastRetake time.Time // when retake last gave a core a new owner
	lastTrim   time.Time // when the idle context pool was last trimmed (trimIfDue)
	helperRuns uint64    // helpers' heartbeat at the last help
}

// tick is one round of spec 05's monitor at time now: it finds cores whose
// owner has made no progress (heartbeat unchanged for staleAfter) while work
// waits, and gives each to a fresh owner (retake), at most one per
// scaleEvery and while fewer than maxTemp goroutines are stuck without
// their core, past that bound starting helpers instead (help); and it sends
// next-slot tasks that sat there since the previous tick to the global
// queue (moveStaleNext). It reports whether it retook a core or started a
// helper. Called by the sysmon goroutine only.
//
// Whether the global queue holds work is read before moveStaleNext runs,
// so a task moved in this tick justifies no retake until the next tick.
// Read after, a move would make its own core look stuck with work
// waiting: a parent that runs its children inline moves no heartbeat, so
// an owner the OS merely descheduled between a Launch and its Await for
// two ticks would lose its core in the tick that moved its child, though
// its child is already offered to every other owner (moveStaleNext wakes
// one) and the parent mostly runs it itself once back. A truly stuck core
// (its body blocked on a Go channel, a mutex, a syscall) is retaken one
// tick later instead, if the moved task still waits then: sysmon polls
// every sysmonMin while tasks are queued, so that is a delay of one tick
// of sysmonMin, and only for a retake that the moved task alone would
// justify. Work queued by any other path (a full inbox's overflow, a
// stuck core's inbox) counts in the tick that first sees it.
func (e *Executor) tick(now time.Time, s *tickState) (did bool) {
	globalWaits := !e.global.empty()
	e.moveStaleNext()
	did, capped := e.retake(now, &s.lastRetake, globalWaits)
	if capped && e.help(&s.helperRuns) {
		did = true
	}
	return did
}

// retake gives stuck cores new owners: a Running core whose beat has not
// moved for staleAfter while globalWaits (the global queue held work at the
// start of the tick, see tick) or its inbox or ready queue holds work. It reports whether
// it retook any, and whether some core was stuck with work waiting while
// the bound on retaken goroutines (TempWorkers) was reached (then sysmon
// starts helpers instead, see help).
func (e *Executor) retake(now time.Time, last *time.Time, globalWaits bool) (did, capped bool) {
	for i := range e.cores {
		c := &e.cores[i]
		if b := c.beat.Load(); b != c.seenBeat || c.seenAt.IsZero() {
			c.seenBeat, c.seenAt = b, now
			continue
		}
		old := c.word.Load()
		if stateOf(old) != coreRunning || now.Sub(c.seenAt) < e.cfg.staleAfter {
			continue
		}
		if !globalWaits && c.inbox.empty() && c.ready.empty() {
			// Stuck, maybe, but holding nothing up. A task in c's next
			// slot does not count: it is mostly an awaited child its
			// parent already ran (a parent running children inline
			// moves no beat), and a live one moveStaleNext sends to
			// the global queue once it has sat there a whole tick,
			// where it counts from the tick after (see tick).
			continue
		}
		if e.retaken.Load() >= int64(e.cfg.maxTemp) {
			capped = true
			continue
		}
		if now.Sub(*last) < e.cfg.scaleEvery {
			continue
		}
		if testHookRetake != nil {
			testHookRetake(c)
		}
		id := e.newID()
		if c.word.CompareAndSwap(old, mkword(id, coreRunning)) {
			e.retaken.Add(1)
			e.stats.retakes.Add(1)
			*last, c.seenAt = now, now
			e.startWorker(id, c)
			did = true
		}
	}
	return did, capped
}

// queuesEmpty reports whether the global queue, every inbox and every next
// slot looked empty. Advisory.
func (e *Executor) queuesEmpty() bool {
	if !e.inboxesEmpty() {
		return false
	}
	for i := range e.cores {
		if e.cores[i].next.Load() != nil {
			return false
		}
	}
	return true
}

// moveStaleNext moves a task that has sat in a core's next slot since the
// previous tick to the global queue and wakes an owner for it: its parent
// went on without awaiting it (or, on a loaded machine, has not run since
// it launched it), and no idle owner took it before sleeping (stealNext),
// since they were asleep already. A Finished one is dropped, its end for
// active_tasks. Tasks are garbage-collected Jobs, and seenNext keeps the
// old one alive, so a match is the very same task. A moved task makes a
// stuck core retakable only from the next tick on (see tick).
func (e *Executor) moveStaleNext() {
	for i := range e.cores {
		c := &e.cores[i]
		t := c.next.Load()
		if t == nil || t != c.seenNext {
			c.seenNext = t
			continue
		}
		c.seenNext = nil
		if !c.next.CompareAndSwap(t, nil) {
			continue
		}
		if e.endStale(t) {
			continue
		}
		e.global.push(t)
		e.wakeOne()
	}
}
