package stealing

import (
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

const (
	// stallAfter is how long queued work may sit without any worker taking
	// from its queue before the monitor adds a temporary worker (spec 05
	// SCALE_INTERVAL: also the monitor's tick, so workers are added at most
	// once per stallAfter, their number doubling while the stall lasts).
	stallAfter = 500 * time.Microsecond
	// calmTicks is how many ticks in a row without a stall the monitor waits
	// before it takes back half of the temporary workers (TEMP_IDLE_TIMEOUT).
	calmTicks = 4
)

// monitorState is the part of the executor the monitor goroutine and its
// wakers share.
type monitorState struct {
	// asleep is true while the monitor is blocked waiting for work to exist.
	// The monitor stores true and then checks the queues; a spawner stores
	// its task and then loads asleep (seq-cst both, a Dekker pair), so
	// either the monitor sees the task or the spawner sees asleep and wakes
	// it. The spawner's load is the only cost the monitor adds to Spawn.
	asleep atomic.Bool
	// noTrim is true while the monitor sleeps with no trim of the idle
	// coroutine pool pending (the pool was empty). The monitor stores true
	// and then checks the pool; flushIdle stores its coroutines and then loads
	// noTrim (seq-cst both), so a pool that becomes non-empty is trimmed.
	noTrim atomic.Bool
	kick   chan struct{} // capacity 1: a wake-up that is never lost, at most one pending
}

func (m *monitorState) init() { m.kick = make(chan struct{}, 1) }

// wake wakes the sleeping monitor (the first caller after it fell asleep).
func (m *monitorState) wake() {
	if m.asleep.CompareAndSwap(true, false) {
		select {
		case m.kick <- struct{}{}:
		default:
		}
	}
}

// monitor is spec 05's sysmon reduced to horizontal scaling. While work is
// queued it ticks every stallAfter; a queue (a P's ring with its ready
// slot, or the global queues) that held runnable work at two ticks in a
// row with nothing taken from it in between is stuck: its workers are
// blocked in bodies on something the runtime cannot see (a Go channel, a
// mutex, a syscall), or no worker runs on its P and none runs dry to steal
// from it. On such a tick it grants a temporary worker per stuck queue,
// or, if at most two calm ticks separate it from the previous stalled
// tick, as many as it granted in that run of stalls, so their number
// doubles while the stall lasts; never more than there are queued tasks,
// nor past cap. At the cap it moves the work of each stuck P to the
// global queues instead (see scan). A chain of N tasks each blocked until
// a later one runs thus gets its N goroutines in about 2 log2(N) ticks,
// where one per tick would take N ticks. After calmTicks ticks without a
// stall it takes half of them back (the workers then running over the
// target retire after their tasks); with nothing queued it takes them all
// back and sleeps until a spawn wakes it, so an idle executor costs no
// CPU.
func (e *Executor) monitor() {
	defer e.wg.Done()
	m := &e.mon
	last := make([]uint32, len(e.rings)+1) // progress signatures at the last tick
	busy := make([]bool, len(e.rings)+1)   // runnable work seen at the last tick
	tick := time.NewTimer(stallAfter)
	defer tick.Stop()
	trim := time.NewTimer(trimEvery)
	defer trim.Stop()
	lastTrim := time.Now()
	calm := 0
	burst, quiet := int32(0), 0 // workers granted in the current run of stalls; ticks since the last stall
	for {
		if !e.anyWork() {
			e.sched.extra.Store(0) // nothing queued: temporaries retire after their tasks
			for {
				m.asleep.Store(true) // again after each wake: a kick took it back
				if e.anyWork() {
					break
				}
				if !e.monitorSleep(trim, &lastTrim) {
					return
				}
			}
			m.asleep.Store(false)
			clear(busy)
			burst = 0
		}
		tick.Reset(stallAfter)
		select {
		case <-tick.C:
		case <-e.quit:
			return
		}
		e.trimIfDue(&lastTrim)
		extra := e.sched.extra.Load()
		stuck, queued := e.scan(last, busy, extra >= e.cap)
		switch {
		case stuck > 0 && extra < e.cap:
			calm = 0
			if quiet > 2 {
				burst = 0 // a new run of stalls
			}
			k := min(max(stuck, burst), e.cap-extra, queued)
			if testHookStalled != nil {
				testHookStalled(k)
			}
			burst, quiet = burst+k, 0
			e.sched.extra.Add(k)
			for range k {
				e.forceWake()
			}
		case stuck == 0:
			quiet++
			if calm++; calm >= calmTicks && extra > 0 {
				calm = 0
				e.sched.extra.Add(-(extra + 1) / 2)
			}
		}
	}
}

// monitorSleep blocks the monitor while nothing is queued: until a kick, or,
// while the idle coroutine pool is not empty, until its next trim is due
// (it trims then). It reports false once the executor is closed.
func (e *Executor) monitorSleep(trim *time.Timer, lastTrim *time.Time) bool {
	m := &e.mon
	if e.pool.size.Load() == 0 {
		m.noTrim.Store(true)
		if e.pool.size.Load() == 0 {
			select {
			case <-m.kick:
			case <-e.quit:
				m.noTrim.Store(false)
				return false
			}
		}
		m.noTrim.Store(false)
		*lastTrim = time.Now() // the pool's low-water mark starts now
		return true
	}
	trim.Reset(max(trimEvery-time.Since(*lastTrim), time.Millisecond))
	select {
	case <-m.kick:
		return true
	case <-trim.C:
	case <-e.quit:
		return false
	}
	e.trimIfDue(lastTrim)
	return true
}

// trimIfDue trims the idle coroutine pool if trimEvery has passed since
// the last trim (*last, which then moves to now). Monitor only.
func (e *Executor) trimIfDue(last *time.Time) {
	if now := time.Now(); now.Sub(*last) >= trimEvery {
		*last = now
		e.pool.trim()
	}
}

// scan looks at every queue once, for a tick of the monitor: each ring
// with its ready slot, then the global queues (the injector, the ready
// list and the yield list) as one. A queue is stuck if it held runnable
// work at the last tick and at this one, with nothing taken from it in
// between. last and busy hold each queue's progress signature and whether
// it held work, from the last tick to the next. It returns the stuck
// queues and about how many runnable tasks and ready chains it saw (a
// racy count).
//
// If full (the monitor may add no worker), scan moves the work of each
// stuck ring to the global queues (unstick): the work of a P on which no
// driver runs, or whose driver is blocked in a body, is then found by the
// fairness tick of every driver (see findLocal), where otherwise only a
// spinner would steal it, and there may never be one: drivers that keep
// finding work of their own on their P never spin. The global queues need
// no such help.
func (e *Executor) scan(last []uint32, busy []bool, full bool) (stuck, queued int32) {
	for i := range len(e.rings) + 1 {
		var sig uint32
		var n int32
		if i < len(e.rings) {
			sig, n = e.rings[i].progress()+e.readies[i].takes.Load(), e.rings[i].queued()
			if e.readies[i].c.Load() != nil {
				n++
			}
		} else {
			sig, n = e.inj.pops.Load()+e.readyQ.pops.Load()+e.yieldQ.pops.Load(), int32(min(e.inj.n.Load(), maxExtraLimit))+e.readyQ.n.Load()+e.yieldQ.n.Load()
		}
		work := n > 0
		if work && busy[i] && sig == last[i] {
			stuck++
			if full && i < len(e.rings) {
				e.unstick(i)
				sig = e.rings[i].progress() + e.readies[i].takes.Load()
			}
		}
		last[i], busy[i] = sig, work
		queued += n
	}
	return stuck, queued
}

// unstick moves the runnable work of ring i and ready slot i to the global
// queues: the ring's FIFO and LIFO slot, oldest first, to the injector, and
// the slot's ready chain to the ready list. It takes as a thief does
// (ring.grab, ring.takeNext, readySlot.take), so the ring's owner, if one
// is running, loses nothing, and a task an await runs inline meanwhile is
// a stale entry, as in any queue. Each push is followed by wake, as for
// any publisher. Called by the monitor only, on a stuck P (see scan).
func (e *Executor) unstick(i int) {
	var batch [ringSize + 1]*kc.Task
	r := &e.rings[i]
	n := r.grab(batch[:ringSize], false)
	if t := r.next.Load(); t != nil && !stale(t) && r.takeNext(t) {
		batch[n] = t
		n++
	}
	if n > 0 {
		e.inj.push(batch[:n], nil)
		e.wake()
	}
	if c := e.readies[i].take(); c != nil {
		e.readyQ.push(c) // c.n is the chain's length, as in a slot
		e.wake()
	}
}

// forceWake starts or wakes a spinning worker even if one is spinning: the
// monitor saw that the spinners (if any) are not getting at the work.
func (e *Executor) forceWake() {
	e.sched.running.Add(1)
	e.sched.spinning.Add(1)
	e.startSpinner()
}
