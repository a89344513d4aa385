package stealing

import (
	"sync/atomic"
	"time"
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
// queued it ticks every stallAfter; a queue (a ring or the injector) that
// held runnable work at two ticks in a row with nothing taken from it in
// between is stuck: its workers are blocked in bodies on something the
// runtime cannot see (a Go channel, a mutex, a syscall). On such a tick it
// grants a temporary worker per stuck queue, or, if at most two calm ticks
// separate it from the previous stalled tick, as many as it granted in
// that run of stalls, so their number doubles while the stall lasts; never more than
// there are queued tasks, nor past cap. A chain of N tasks each blocked
// until a later one runs thus gets its N goroutines in about 2 log2(N)
// ticks, where one per tick would take N ticks. After calmTicks ticks
// without a stall it takes half of them back (the workers then running
// over the target retire after their tasks); with nothing queued it takes
// them all back and sleeps until a spawn wakes it, so an idle executor
// costs no CPU.
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
		if now := time.Now(); now.Sub(lastTrim) >= trimEvery {
			lastTrim = now
			e.pool.trim()
		}
		stuck := int32(0)  // queues that held work at both ticks and made no progress
		queued := int32(0) // runnable tasks seen in the queues (a racy count)
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
			}
			last[i], busy[i] = sig, work
			queued += n
		}
		extra := e.sched.extra.Load()
		switch {
		case stuck > 0 && extra < e.cap:
			calm = 0
			if quiet > 2 {
				burst = 0 // a new run of stalls
			}
			k := min(max(stuck, burst), e.cap-extra, queued)
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
	*lastTrim = time.Now()
	e.pool.trim()
	return true
}

// forceWake starts or wakes a spinning worker even if one is spinning: the
// monitor saw that the spinners (if any) are not getting at the work.
func (e *Executor) forceWake() {
	e.sched.running.Add(1)
	e.sched.spinning.Add(1)
	e.startSpinner()
}
