package vcore

import (
	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// maxHelpers bounds the helper goroutines alive at once. It is in effect no
// cap: help never starts more helpers than there are queued tasks, so N
// tasks blocked at once on Go channels get at most N goroutines, as with
// go statements.
const maxHelpers = 1 << 20

// Helpers: temporary workers beyond the locked-thread bound.
//
// A retake gives a stuck core a fresh owner, but the stuck goroutine keeps its
// locked OS thread until its body returns, so retakes stop at TempWorkers. A
// chain of tasks each blocked on a Go channel until a later one runs needs a
// goroutine per task, up to 10 000 and more: as many threads would hit Go's
// fatal thread limit. So once the bound is reached, sysmon starts helpers
// instead: plain, unlocked goroutines with no core, which take tasks from the
// global queue and then from every inbox and next slot (as an owner steals),
// run them, and retire as soon as they find none (spec 05's TEMP_IDLE_TIMEOUT
// is zero here, as for a retaken goroutine). A helper blocked in a body costs a
// goroutine, not a thread. A helper that parks in a kc wait is not in the
// thread registry, so Park just waits: it holds no core to hand off.

// help starts helpers when some core is stuck with work waiting and the
// locked-thread bound is reached (retake reported capped), unless the
// helpers already running took a task since the last call (seen holds the
// count then): as many as are running, at least one, so their number
// doubles while the stall lasts, but never more than tasks are queued. It
// reports whether it started any. Called by sysmon only.
func (e *Executor) help(seen *uint64) bool {
	runs, n := e.helperRuns.Load(), e.helpers.Load()
	if n > 0 && runs != *seen {
		*seen = runs // they are getting through the queues
		return false
	}
	*seen = runs
	k := min(max(n, 1), maxHelpers-n, e.queued())
	for range k {
		e.helpers.Add(1)
		e.stats.helpers.Add(1)
		e.wg.Add(1)
		go e.helper()
	}
	return k > 0
}

// helper is a helper goroutine: it runs queued tasks, and drives woken
// contexts, until it finds neither.
func (e *Executor) helper() {
	defer e.wg.Done()
	defer e.helpers.Add(-1)
	var kw kc.Worker
	defer kw.Flush() // deferred, so that a body's runtime.Goexit flushes too
	var d stash
	defer e.flush(&d)
	for !e.stop.Load() {
		t := e.global.pop()
		for i := 0; t == nil && i < len(e.cores); i++ {
			if t = e.cores[i].inbox.pop(); t == nil {
				t = e.cores[i].takeNext()
			}
		}
		if t == nil {
			if r := e.anyReady(); r != nil {
				// A woken context: driven here, it reacquires a core
				// or goes on coreless, and this goroutine drives it
				// (and whatever it hands on to) as a driver would.
				e.helperRuns.Add(1)
				kw.Flush()
				e.drive(&d, r)
				continue
			}
			return
		}
		e.helperRuns.Add(1)
		e.runOn(&kw, t)
		// A body may have left the thread locked; this goroutine goes on to
		// drive contexts, and a switch from a locked goroutine throws.
		goruntime.UnlockOSThreadAll()
	}
}

// anyReady pops a context from some core's ready queue, or returns nil.
func (e *Executor) anyReady() *ctx {
	for i := range e.cores {
		if c := &e.cores[i]; !c.ready.empty() {
			if r, _ := c.ready.pop(); r != nil {
				return r
			}
		}
	}
	return nil
}

// queued is about how many tasks wait in the queues (the loads are not one
// snapshot); help sizes its batches with it.
func (e *Executor) queued() int64 {
	n := e.global.ring.len() + e.global.n.Load()
	for i := range e.cores {
		n += e.cores[i].inbox.len() + int64(e.cores[i].ready.n.Load())
		if e.cores[i].next.Load() != nil {
			n++
		}
	}
	return n
}
