package vcore

import (
	"runtime"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// spinYieldEvery is how many polls an idle owner makes between two
// yields (and two looks at the clock) while it spins.
const spinYieldEvery = 16

// Owners without a task give their thread back.
//
// An owner holds its thread locked (LockOSThread) while it runs a task. When
// it has none, because it is looking for work, spinning, asleep, or inside
// Park, it unlocks it (loosen) and keeps its core: core.word still says
// Running (or Sleeping) with its id, and with goroutine keys it stays in the
// registry. It locks again (tighten) just before it runs a task or returns to
// its body. Locking and unlocking cost a few ns when the goroutine does not
// block in between; blocking while locked is what is dear: a locked goroutine
// that blocks puts its thread to sleep and hands its P to another thread, and
// its wake-up must hand the P back to that very thread, 13-100 µs a round trip
// (DESIGN.md's measured facts) where an unlocked goroutine's is a few hundred
// ns. So spins yield and sleeps block only unlocked. Pinned owners never
// loosen: re-pinning would cost two system calls per round and leave the CPU
// unpinned in between; they spin without yielding and sleep locked, as spec
// 05's workers do.

// loosen gives w's thread back to the Go runtime while w keeps its core
// (see above). With thread keys w leaves the registry first, as a thread
// key is only exact while the thread is locked. Pinned: a no-op.
func (e *Executor) loosen(w *worker) {
	if !w.locked || e.pin.on {
		return
	}
	if !regByG {
		e.reg.remove(w)
	}
	runtime.UnlockOSThread()
	w.locked = false
}

// tighten locks w's goroutine to its thread again after loosen.
func (e *Executor) tighten(w *worker) {
	if w.locked {
		return
	}
	runtime.LockOSThread()
	if !regByG {
		e.reg.add(w)
	}
	w.locked = true
}

// findWork returns the next task for c's owner, or a ready context to hand
// c to (poll's order: c's ready queue, its next slot, own inbox, global
// queue, then other inboxes and ready queues). Out of work, the owner
// spins for the configured budget if it may (startSpin: pinned owners and
// contexts always, other owners while fewer than half the cores' owners
// spin), then takes another core's next slot (stealNext) or the head of
// another core's ready queue (stealReady) and sleeps; an owner that may
// not spin sleeps at once. It returns nothing when the executor stops or
// when w lost c. A task comes back with w locked; a context or nothing
// may leave w loosened. Stale entries (Finished tasks) are dropped here,
// so that an owner draining them neither locks its thread nor yields for
// each.
//
// Why at most half spin (Go's rule for its spinning threads, findRunnable):
// a spinning owner is a runnable goroutine, not an idle thread, and every
// one of them takes a P from the goroutines that make and await the work.
// With every core's owner spinning, a body that launches and joins one
// child at a time shares two Ps with two spinners: its child is taken by
// whichever spinner polls first, mostly one on the other P, so the body is
// woken there and its next child goes the same way, each op crossing Ps;
// and a spinner that holds the P the woken body needs delays it by its
// polls up to the next yield. One spinner is enough to find work pushed
// to a busy core (for such a push kick wakes a sleeper only when nobody
// spins); an owner that sleeps instead is woken onto its waker's P (a
// channel send readies it there), as a go statement's goroutine starts on
// its creator's.
//
// Out of work, the loosened owner first yields, whether it will spin or
// sleep: Go puts a goroutine readied by a running one in that P's runnext
// slot, so the yield lets a caller woken by the last task (a Run from
// outside, a joiner of the task) run at once, rather than after the whole
// spin (BenchmarkSpawnJoin) or after the owner's sleep bookkeeping. A
// spinner yields again every spinYieldEvery polls, so it never keeps such
// a goroutine from its P for long.
func (e *Executor) findWork(w *worker, c *core) (*kc.Task, *ctx) {
	spinning, looked := false, false
	var until time.Time
	for n := 0; ; n++ {
		t, r := e.poll(w, c)
		if r != nil {
			if spinning {
				e.spunToWork()
			}
			return nil, r // w's thread may be loosened: switchTo unlocks it either way
		}
		if t != nil {
			if e.endStale(t) {
				// Ended without locking the thread for it. The beat
				// moves: draining stale entries is progress.
				c.beat.Add(1)
				continue
			}
			if spinning {
				e.spunToWork()
			}
			e.tighten(w)
			return t, nil
		}
		// Out of work: drop the batched releases before spinning or
		// sleeping, so no parent waits on a worker that is not running.
		w.kw.Flush()
		if w.isCtx {
			e.flushEnded(ctxOf(w))
		}
		if e.stop.Load() {
			break
		}
		if !looked { // the first empty poll since the last task or sleep
			looked = true
			e.loosen(w)
			e.yield(w)
			if e.startSpin() {
				spinning, until = true, time.Now().Add(e.cfg.spin)
				continue
			}
		} else if spinning {
			if n%spinYieldEvery != 0 {
				continue
			}
			e.yieldSpin(w)
			if time.Now().Before(until) {
				continue
			}
			if t := e.stealNext(c); t != nil {
				if e.endStale(t) {
					c.beat.Add(1)
					continue
				}
				e.nspinning.Add(-1)
				e.tighten(w)
				return t, nil
			}
			if r := e.stealReady(c); r != nil {
				e.nspinning.Add(-1)
				return nil, r
			}
			e.nspinning.Add(-1)
			spinning = false
		}
		looked = false
		if !e.sleep(w, c) {
			return nil, nil
		}
	}
	if spinning {
		e.nspinning.Add(-1)
	}
	return nil, nil
}

// startSpin counts the caller in nspinning and reports true if fewer than
// half the cores' owners spin (at least one may, also with one core);
// otherwise it counts nothing and reports false: the caller sleeps. A CAS
// loop, so the count never exceeds the bound, even for a moment. Pinned
// owners always spin, as spec 05's workers do: their sleep and wake-up are
// an OS sleep and wake-up of a locked thread, and each holds a CPU of its
// own. So do owners that are contexts (ctx.go): the bound keeps spinners
// from the Ps of coreless bodies, and a context parks as a coroutine,
// not as a goroutine that needs a P; and the wake of a sleeping owner
// lands in the runnext slot of the waker's P, where, behind a driver that
// only switches coroutines (which never enters the scheduler), it may wait
// until a preemption, so fewer sleepers is fewer such waits.
func (e *Executor) startSpin() bool {
	if e.pin.on || e.coro {
		e.nspinning.Add(1)
		return true
	}
	for {
		n := e.nspinning.Load()
		if 2*int(n) >= len(e.cores) {
			return false
		}
		if e.nspinning.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// yield is an owner's first yield once out of work. It is the runtime's
// goyield: the owner goes to the back of its P's local run queue, so the
// goroutine its last task readied (in the P's runnext slot) runs next, on
// this P, and the owner stays on that P rather than passing through the
// global run queue to another one, from where it would take that
// goroutine's next child across Ps. A locked (pinned) owner does not
// yield: a yield there would hand the thread off.
func (e *Executor) yield(w *worker) {
	if !w.locked {
		goruntime.Yield()
	}
}

// yieldSpin is a spinner's periodic yield, runtime.Gosched: through the
// global run queue, so that a spinner sharing a P with other goroutines
// moves to an idle P. A locked (pinned) owner does not yield.
func (e *Executor) yieldSpin(w *worker) {
	if !w.locked {
		runtime.Gosched()
	}
}

// spunToWork ends the caller's spin because it found work. If it was the
// last spinner and more work waits, it wakes an owner to look (Go's
// resetspinning): a pusher that saw it spinning woke nobody, counting on
// it, and it takes only one task.
func (e *Executor) spunToWork() {
	if e.nspinning.Add(-1) == 0 && !e.inboxesEmpty() {
		e.wakeOne()
	}
}
