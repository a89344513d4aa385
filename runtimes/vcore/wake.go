package vcore

// Sleeping and waking owners without losing a wake-up.
//
// The handshake is spec 05's Dekker pattern over two locations, each side
// storing to one and then loading the other, with Go's sequentially
// consistent atomics:
//
//	pusher:  push task (ring seq store)   ->  load core.word (kick) / nspinning (wakeOne)
//	sleeper: CAS word Running -> Sleeping  ->  load every queue and stop (idle)
//
// Either the sleeper's re-check sees the task (and it cancels its sleep), or
// the pusher sees Sleeping (and wakes it by CAS Sleeping -> Running plus a
// token). For a task pushed to a busy core, the pusher wakes a sleeping core
// to steal it unless some owner is spinning; a spinner re-checks the queues
// before it sleeps, after its nspinning decrement, so it cannot miss a task
// whose pusher saw nspinning > 0.

// kick makes sure c's task will be found: it wakes c's sleeping owner,
// starts an owner for a Free core, or, if c's owner is awake but maybe busy
// in a long task, wakes another core to steal.
func (e *Executor) kick(c *core) {
	for {
		w := c.word.Load()
		switch stateOf(w) {
		case coreRunning:
			if e.nspinning.Load() == 0 {
				e.wakeOne()
			}
			return
		case coreSleeping:
			if c.word.CompareAndSwap(w, mkword(ownerOf(w), coreRunning)) {
				e.stats.wakes.Add(1)
				c.signal()
				return
			}
		case coreFree:
			nw := e.newWorker()
			if c.word.CompareAndSwap(w, mkword(nw.id, coreRunning)) {
				e.startWorker(nw, c)
				return
			}
		default: // coreClosed: Spawn after Close, a bug in the core; drop the wake
			return
		}
	}
}

// wakeOne wakes one sleeping owner, or starts an owner for one Free core,
// so that work on the global queue or a busy core's inbox gets looked at.
// It does nothing if every core's owner is awake.
func (e *Executor) wakeOne() {
	for i := range e.cores {
		c := &e.cores[i]
		w := c.word.Load()
		switch stateOf(w) {
		case coreSleeping:
			if c.word.CompareAndSwap(w, mkword(ownerOf(w), coreRunning)) {
				e.stats.wakes.Add(1)
				c.signal()
				return
			}
		case coreFree:
			nw := e.newWorker()
			if c.word.CompareAndSwap(w, mkword(nw.id, coreRunning)) {
				e.startWorker(nw, c)
				return
			}
		}
	}
}

// idle reports whether every queue looked empty and the executor is not
// stopping. Advisory, but used only after a Sleeping store (see above).
func (e *Executor) idle() bool {
	if e.stop.Load() || !e.global.empty() {
		return false
	}
	for i := range e.cores {
		if !e.cores[i].inbox.empty() {
			return false
		}
	}
	return true
}

// sleep blocks c's owner until someone wakes it. It returns false, at once,
// if c is no longer w's (sysmon retook it, possibly just after the wake),
// and true otherwise, with c Running(w.id) again. Cost when it really sleeps: a channel receive on a
// locked thread, whose wake-up is a futex wake of that very thread (13-100
// µs measured here), which is why findWork spins first.
func (e *Executor) sleep(w *worker, c *core) bool {
	running, sleeping := mkword(w.id, coreRunning), mkword(w.id, coreSleeping)
	if !c.word.CompareAndSwap(running, sleeping) {
		return false
	}
	if !e.idle() {
		if c.word.CompareAndSwap(sleeping, running) {
			return true // cancelled our own sleep: no token was sent
		}
		// A waker won the CAS and sends the token; take it.
	} else {
		e.stats.sleeps.Add(1)
	}
	for {
		<-c.wake
		switch c.word.Load() {
		case running:
			c.beat.Add(1) // a fresh heartbeat: we are not stuck, just woken
			return true
		case sleeping:
			// A token with no CAS behind it cannot happen by the
			// protocol; if one ever did, waiting again is safe.
			continue
		}
		// Woken, then sysmon saw a Running core with an old beat and work
		// in its inbox and gave it to a new owner before we looked: the
		// core is not ours any more.
		return false
	}
}
