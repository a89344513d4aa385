package vcore

import (
	"iter"
	"runtime"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// fairEvery is spec 05's fairness rule: every fairEvery polls an owner
// looks at the global queue before its own inbox.
const fairEvery = 61

// newID returns a fresh owner id: the id of the owner a core's word is
// about to name (its CAS to Running), whose goroutine then starts under it
// (startWorker, worker.start).
func (e *Executor) newID() uint64 { return e.nextID.Add(1) }

// start readies w, the calling goroutine's own record, to be the owner
// named id: the record of its previous owner, if any, has ended (exit
// flushed kw and unregistered it). The wake channel stays the goroutine's.
func (w *worker) start(id uint64) {
	w.id.Store(id) // before c.sleeper can name w under id (sleep stores it later)
	w.core, w.due, w.slot, w.tick, w.role, w.locked = nil, 0, -1, 0, roleOwner, false
}

// workerMain is an owner goroutine: it locks its thread, runs tasks from its
// core, and ends when the executor stops or when it is left without a core.
func (e *Executor) workerMain(w *worker, c *core) {
	e.lock(w, c)
	defer e.exit(w) // deferred, so a body's runtime.Goexit passes the core on too
	for {
		if w.role != roleOwner || e.lost(w) {
			if !e.adopt(w) {
				return
			}
			continue
		}
		c := w.core
		t, r := e.findWork(w, c)
		if r != nil {
			c.beat.Add(1) // a resumption is progress, as a task's start is
			e.switchTo(w, c, r)
			return
		}
		if t == nil {
			if e.stop.Load() && !e.lost(w) {
				return
			}
			continue // lost the core while looking: the top of the loop sorts it out
		}
		c.beat.Add(1)
		e.runTask(w, t)
	}
}

// runTask runs one task; taskDone is deferred so that it also counts a
// body that ended its goroutine with runtime.Goexit.
func (e *Executor) runTask(w *worker, t *kc.Task) {
	w.due = 0 // a timer of the previous task's is no wait of t's (timer.go)
	if w.isCtx {
		x := ctxOf(w)
		defer x.endOne() // deferred, so that a body's Goexit counts too
		t.RunOn(&w.kw)
		return
	}
	e.runOn(&w.kw, t)
}

// runOn runs t with its parents' releases batched in kw (see runTask).
func (e *Executor) runOn(kw *kc.Worker, t *kc.Task) {
	defer e.taskDone()
	t.RunOn(kw)
}

// lock makes the calling goroutine c's owner thread; c.word must already
// say Running(w.id).
func (e *Executor) lock(w *worker, c *core) {
	runtime.LockOSThread()
	e.pin.pin(c.cpu)
	if w.slot < 0 { // else the slot was handed to it (switchTo)
		e.reg.add(w)
	}
	w.locked, w.core, w.role = true, c, roleOwner
}

// unlock undoes lock: the thread goes back to the Go runtime, unpinned (if
// loosen has not already given it back), and w is no owner any more.
func (e *Executor) unlock(w *worker) {
	e.reg.remove(w)
	if w.locked {
		e.pin.unpin()
		runtime.UnlockOSThread()
	}
	w.locked, w.core, w.role = false, nil, roleCoreless
}

// lost reports whether sysmon took w's core away; if so it unlocks w, which
// then no longer counts against the temporary-worker bound.
func (e *Executor) lost(w *worker) bool {
	if ownerOf(w.core.word.Load()) == w.id.Load() {
		return false
	}
	e.unlock(w)
	e.retaken.Add(-1)
	return true
}

// exit runs when an owner goroutine ends: normally (stop, or no core to
// adopt) or through a body's runtime.Goexit, in which case the core it
// still owns is passed on as in Park.
func (e *Executor) exit(w *worker) {
	w.kw.Flush()
	if w.isCtx {
		e.flushEnded(ctxOf(w))
	}
	c := w.core
	if w.role != roleOwner || e.lost(w) {
		w.role = roleDone
		return
	}
	defer func() { w.role = roleDone }()
	e.unlock(w)
	if e.stop.Load() {
		// Nothing is queued once stop is set, so sysmon cannot retake c
		// any more; the CAS is belt and braces.
		c.word.CompareAndSwap(mkword(w.id.Load(), coreRunning), mkword(0, coreClosed))
		return
	}
	e.giveAway(w, c)
}

// adopt makes a coreless goroutine the owner of some Free core, if there is
// one; otherwise the goroutine ends (a temporary worker retires at once).
func (e *Executor) adopt(w *worker) bool {
	for i := range e.cores {
		if e.tryClaim(w, &e.cores[i]) {
			return true
		}
	}
	return false
}

// tryClaim takes c if it is Free.
func (e *Executor) tryClaim(w *worker, c *core) bool {
	old := c.word.Load()
	if stateOf(old) != coreFree || !c.word.CompareAndSwap(old, mkword(w.id.Load(), coreRunning)) {
		return false
	}
	e.lock(w, c)
	return true
}

// release is Park's half before the wait: unlock the thread (so that a
// parked task costs a goroutine, not an OS thread) and pass the core on.
func (e *Executor) release(w *worker) {
	c := w.core
	e.stats.handoffs.Add(1)
	e.unlock(w)
	w.role = roleParked
	e.giveAway(w, c)
}

// reacquire is Park's half after the wait, spec 05's soft affinity: the
// goroutine takes its previous core back if it is Free, else any Free core,
// else it finishes its body coreless (the starvation escape hatch: it
// never waits for a core).
func (e *Executor) reacquire(w *worker, prev *core) {
	w.role = roleCoreless
	if !e.tryClaim(w, prev) {
		e.adopt(w)
	}
}

// giveAway passes c, which w owned (and has unlocked), on (pass), and
// starts its new owner elsewhere.
func (e *Executor) giveAway(w *worker, c *core) {
	if s, ok := e.pass(mkword(w.id.Load(), coreRunning), c); ok {
		e.runElsewhere(s)
	}
}

// pass passes c, whose word was me (Running(id of a worker that has
// unlocked), to a new owner if work waits for it (ownerFor says which: it
// moves c's word to it) and returns that owner's start for the caller to
// run; else it marks c Free and reports false. If c's word is no longer
// me, sysmon took c while its owner was stuck; that owner now holds no
// thread, so it leaves the bound.
func (e *Executor) pass(me uint64, c *core) (ownerStart, bool) {
	for {
		if c.word.Load() != me {
			e.retaken.Add(-1)
			return ownerStart{}, false
		}
		if e.holdsWork(c) {
			id := e.newID()
			if c.word.CompareAndSwap(me, mkword(id, coreRunning)) {
				e.stats.workersStarted.Add(1)
				return e.ownerFor(id, c), true
			}
			continue
		}
		if testHookPass != nil {
			testHookPass(c)
		}
		if c.word.CompareAndSwap(me, mkword(0, coreFree)) {
			// Dekker with Spawn and Resume (push, then load the word):
			// we stored Free, now we load the queues. One of us sees
			// the other.
			if e.holdsWork(c) {
				e.kick(c)
			}
			return ownerStart{}, false
		}
	}
}

// ownerFor returns the start of the owner named id for c, whose word
// already says Running(id): the oldest context of c's ready queue, given
// that id and granted c, so that a woken task resumes with no fresh owner
// in between; else a fresh owner.
func (e *Executor) ownerFor(id uint64, c *core) ownerStart {
	if e.coro {
		if r := popReady(c); r != nil {
			r.w.id.Store(id)
			r.grant = c
			return ownerStart{t: r}
		}
	}
	return ownerStart{id: id, c: c}
}

// poll tries the queues once, in spec 05's order, with the fairness rule:
// c's ready queue (resumptions of tasks already started) first, then c's
// next slot, its inbox, the global queue, and other cores' inboxes and
// ready queues; every fairEvery-th poll, the global queue and then c's
// inbox come before the next slot, which a task that keeps launching its
// successor keeps full (TestInboxNotStarvedByNext). It returns a task or a
// context, or neither. Other cores' next slots are left to their owners
// (stealNext takes them only before a sleep), and so is a lone context in
// another core's ready queue (stealReady, likewise): a task that launches
// a child and joins it parks, the core's next owner runs the child, and
// the child's end puts the joiner, alone, on that core's ready queue,
// where the owner finds it as soon as the child has returned. A spinner
// that took it instead moved the op to the other core, with the joiner's
// memory and the core's queues (TestLoneReadyStaysHome); a queue of two or
// more holds work for both. The price falls on a context woken onto a
// core whose owner is busy in a long task or stuck in a body: the owner
// that Resume's kick wakes takes it at the end of its spin, a spin budget
// (20 µs by default) later (TestLoneReadyTakenBeforeSleep).
func (e *Executor) poll(w *worker, c *core) (*kc.Task, *ctx) {
	if !c.ready.empty() {
		if r := popReady(c); r != nil {
			return nil, r
		}
	}
	w.tick++
	if w.tick%fairEvery == 0 {
		if t := e.global.pop(); t != nil {
			return t, nil
		}
		if t := c.inbox.pop(); t != nil {
			return t, nil
		}
	}
	if c.next.Load() != nil {
		if t := c.next.Swap(nil); t != nil {
			return t, nil
		}
	}
	if t := c.inbox.pop(); t != nil {
		return t, nil
	}
	if t := e.global.pop(); t != nil {
		return t, nil
	}
	for v := range e.others(c) {
		if t := v.inbox.pop(); t != nil {
			e.stats.steals.Add(1)
			return t, nil
		}
		if v.ready.n.Load() > 1 {
			if r := popReady(v); r != nil {
				e.stats.steals.Add(1)
				return nil, r
			}
		}
	}
	return nil, nil
}

// switchTo hands c, the core of w (a context's worker), to the ready
// context r, which w's driver runs next (ctx.to); w's owner stint ends
// (workerMain returns, and its context goes to the pool). r goes on under
// a fresh id: the driver that suspended r may not have passed r's old core
// on yet (step's pass), and compares that core's word with r's old id
// when it does, so the word must not come to say that id again. If sysmon
// took c from w meanwhile, r goes on without a core (Park's reacquire,
// under a fresh id too) and w leaves the retake bound, as in lost. w's
// registry slot goes to r (registry.hand: r's goroutine, the key, exists,
// and r holds no slot since its park) rather than being freed here and
// claimed again by r's lock.
// w's batch of releases goes on with r, or is dropped (kc.Worker.Pass).
func (e *Executor) switchTo(w *worker, c *core, r *ctx) {
	id := e.newID()
	if c.word.CompareAndSwap(mkword(w.id.Load(), coreRunning), mkword(id, coreRunning)) {
		r.w.id.Store(id) // r runs once w's driver resumes it, after this
		r.grant = c
		e.reg.hand(w, &r.w, uint64(r.g))
		e.unlock(w) // its slot is r's now: unlock frees none
	} else {
		e.unlock(w)
		e.retaken.Add(-1)
	}
	w.kw.Pass(&r.w.kw)
	e.flushEnded(ctxOf(w))
	ctxOf(w).to = r
}

// others yields every core but c, in the order c's owner steals in: from
// the core after c round to the one before it, so that owners of different
// cores start their steals at different victims.
func (e *Executor) others(c *core) iter.Seq[*core] {
	return func(yield func(*core) bool) {
		for i := 1; i < len(e.cores); i++ {
			if !yield(&e.cores[(c.id+i)%len(e.cores)]) {
				return
			}
		}
	}
}

// holdsWork reports whether work waits that c's owner would take: c's ready
// queue, next slot or inbox, or the global queue. Advisory, like ring.empty.
func (e *Executor) holdsWork(c *core) bool {
	return !c.ready.empty() || c.next.Load() != nil || !c.inbox.empty() || !e.global.empty()
}

// stealNext takes the task in another core's next slot, for an owner about
// to sleep: that task's parent has not run it for a whole spin, so it is
// not waiting to run it inline. It reports nil if every slot is empty.
func (e *Executor) stealNext(c *core) *kc.Task {
	for v := range e.others(c) {
		if t := v.takeNext(); t != nil {
			e.stats.steals.Add(1)
			return t
		}
	}
	return nil
}

// stealReady takes the oldest context of another core's ready queue, for
// an owner about to sleep, whatever the queue's length (poll leaves a lone
// one to its own core's owner): that core's owner has not taken it for a
// whole spin, so it may be stuck in a body. It reports nil if every ready
// queue is empty.
func (e *Executor) stealReady(c *core) *ctx {
	for v := range e.others(c) {
		if !v.ready.empty() {
			if r := popReady(v); r != nil {
				e.stats.steals.Add(1)
				return r
			}
		}
	}
	return nil
}

// takeNext takes c's next slot for someone other than c's owner: a load,
// and a CAS only when the slot is full.
func (c *core) takeNext() *kc.Task {
	if t := c.next.Load(); t != nil && c.next.CompareAndSwap(t, nil) {
		return t
	}
	return nil
}
