package vcore

// stashMax bounds a driver's own idle contexts.
const stashMax = 16

// stash is a driver's own idle contexts: a context whose owner stint ends
// goes here, and the fresh owner of a parked context's core comes from
// here, with no lock; the shared pool (ctxPool) takes a full stash and
// whatever a driver holds when it stops driving (flush). Only the driver
// goroutine touches it. t has room for one more than stashMax: the
// context that fills it, which goes to the pool with the rest.
type stash struct {
	t [stashMax + 1]*ctx
	n int
}

// take returns an idle context of the stash, or one from the pool, or a
// new one. The caller is unlocked (see newCtx).
func (e *Executor) take(d *stash) *ctx {
	if d.n > 0 {
		d.n--
		t := d.t[d.n]
		d.t[d.n] = nil
		return t
	}
	if t := e.ctxs.get(); t != nil {
		return t
	}
	return e.newCtx()
}

// idleCtx stashes t, whose owner stint has ended; a full stash goes to the
// pool with t, under one lock (flush). A wake that resumes thousands of
// contexts (a cancel walk) leaves as many idle, and so costs one pool lock
// per stashMax+1 of them, rather than one each, taken by the drivers of
// every core.
func (e *Executor) idleCtx(d *stash, t *ctx) {
	t.state = ctxIdle
	d.t[d.n] = t
	if d.n++; d.n > stashMax {
		e.flush(d)
	}
}

// flush hands every stashed context to the pool.
func (e *Executor) flush(d *stash) {
	if d.n == 0 {
		return
	}
	e.ctxs.putAll(d.t[:d.n])
	clear(d.t[:d.n])
	d.n = 0
}

// drive runs context t, and the context each one it runs hands on to,
// until one hands on none, with d as the driver's stash. A body's Goexit
// ends the driver here (iter.Pull passes it on).
func (e *Executor) drive(d *stash, t *ctx) {
	for t != nil {
		if t.state != ctxReady && t.state != ctxIdle {
			panic("vcore: resume of a context that is " + t.state.String())
		}
		t.state = ctxRunning
		msg, ok := t.next()
		if !ok {
			panic("vcore: a context ended while running")
		}
		next := t.to
		t.to = nil
		switch msg {
		case msgPark:
			p, c := t.park, t.home
			me := mkword(t.w.id.Load(), coreRunning) // before Suspend: after it, t may run elsewhere at once
			t.park = nil
			t.state = ctxParked
			if p.Suspend(t) {
				e.stats.suspends.Add(1)
				// c's word still says me, unless sysmon took c: t, once
				// resumed, takes a core under a fresh id (switchTo,
				// parkCtx), so no word comes to say me again.
				next = e.handOn(me, c, d)
			} else if c.word.Load() == me {
				// The wake came first: t goes on here with its core.
				t.state, t.grant = ctxReady, c
				next = t
			} else {
				// And sysmon took the core meanwhile: t goes on without
				// it (reacquire), and leaves the retake bound.
				e.retaken.Add(-1)
				t.state = ctxReady
				next = t
			}
		case msgDone:
			e.idleCtx(d, t)
		}
		t = next
	}
}

// driver is a driver goroutine's life: it drives what it is started with,
// then waits in the pool of idle goroutines for the next start.
func (e *Executor) driver(s ownerStart) {
	defer e.wg.Done()
	x := newIdle()
	d := new(stash)
	defer e.flush(d) // deferred, so that a body's Goexit, which ends the driver too, pools them as well
	for {
		t := s.t
		if t == nil { // a fresh owner: an idle context, or a new one
			t = e.take(d)
			t.w.start(s.id)
			t.grant = s.c
		}
		e.drive(d, t)
		e.flush(d) // an idle driver holds no context
		if !e.pool.put(x) {
			return
		}
		var ok bool
		if s, ok = x.wait(); !ok {
			return
		}
	}
}

// runElsewhere starts s on an idle pooled goroutine if there is one, else
// on a new one: a driver (coroutine mode) or an owner goroutine.
//
// Its caller need not be counted in wg (a Spawn or a wake from the caller
// of Run, or from a goroutine a body started), so Close may be under way:
// the start goes through e.starts (see package startgate). One that finds
// stop set closes s's core and starts nothing: nothing is queued once
// stop is set, so no owner is needed.
func (e *Executor) runElsewhere(s ownerStart) {
	if x := e.pool.get(); x != nil {
		e.stats.reused.Add(1)
		x.hand(s) // never blocks
		return
	}
	if !e.starts.Begin(&e.stop) {
		if s.t == nil { // a ready context is an active task, so stop is not set yet
			s.c.word.CompareAndSwap(mkword(s.id, coreRunning), mkword(0, coreClosed))
		}
		return
	}
	if testHookStart != nil {
		testHookStart()
	}
	e.wg.Add(1)
	e.starts.End()
	if e.coro {
		go e.driver(s)
	} else {
		go e.ownerLoop(s)
	}
}
