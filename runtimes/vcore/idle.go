package vcore

import (
	"runtime"
	"time"

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

// findWork returns the next task for c's owner: its core's next slot, own
// inbox, global queue, then other inboxes (poll); it spins for the configured
// budget, then sleeps. It returns nil when the executor stops or when w lost
// c. Once the spin is over, it takes another core's next slot (stealNext)
// before it sleeps. A task comes back with w locked; nil may leave w loosened.
// Stale entries (Finished tasks) are dropped here, so that an owner draining
// them neither locks its thread nor yields for each.
//
// Before spinning, the loosened owner yields (Gosched): Go puts a
// goroutine readied by a running one in that P's runnext slot, so without
// the yield a caller woken by the last task (a Run from outside) would
// wait out the whole spin (BenchmarkSpawnJoin). It yields again every
// spinYieldEvery polls, so a spinning owner never keeps such a goroutine
// from its P for long.
func (e *Executor) findWork(w *worker, c *core) *kc.Task {
	spinning := false
	var until time.Time
	for n := 0; ; n++ {
		if t := e.poll(w, c); t != nil {
			if e.endStale(t) {
				// Ended without locking the thread for it. The beat
				// moves: draining stale entries is progress.
				c.beat.Add(1)
				continue
			}
			if spinning {
				e.nspinning.Add(-1)
			}
			e.tighten(w)
			return t
		}
		// Out of work: drop the batched releases before spinning or
		// sleeping, so no parent waits on a worker that is not running.
		w.kw.Flush()
		if e.stop.Load() {
			break
		}
		if !spinning {
			e.loosen(w)
			e.yield(w)
			spinning, until = true, time.Now().Add(e.cfg.spin)
			e.nspinning.Add(1)
			continue
		}
		if n%spinYieldEvery != 0 {
			continue
		}
		e.yield(w)
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
			return t
		}
		e.nspinning.Add(-1)
		spinning = false
		if !e.sleep(w, c) {
			return nil
		}
	}
	if spinning {
		e.nspinning.Add(-1)
	}
	return nil
}

// yield lets other goroutines have the P, unless w is locked (pinned): a
// yield there would hand the thread off.
func (e *Executor) yield(w *worker) {
	if !w.locked {
		runtime.Gosched()
	}
}
