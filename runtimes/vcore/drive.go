package vcore

// stashMax bounds a driver's own idle contexts.
const stashMax = 16

// stash is a driver's own idle contexts: a context whose owner stint ends
// goes here, and the fresh owner of a parked context's core comes from
// here, with no lock; the shared pool (ctxPool) takes a full stash and
// whatever a driver holds when it stops driving (flush). Only the driver
// goroutine and the contexts it runs (driveNested, through ctx.d) touch
// it, one at a time: each is blocked in the next call of the one it
// resumed. t has room for one more than stashMax: the
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
		s := e.step(d, t, false)
		if s.t == nil && s.c != nil { // a fresh owner: an idle or new context, d's first
			s.t = e.take(d)
			s.t.w.start(s.id)
			s.t.grant = s.c
		}
		t = s.t
	}
}

// step resumes context t (from the driver goroutine, or nested under
// another context: see driveNested) until it yields, and does what it
// said. It returns what runs next, as an ownerStart: a context (s.t) to
// resume, that is t itself if its Park's wake came before the suspend, the
// ready context its owner stint handed its core to, or the ready one its
// parked core passes to (pass); else the start of a fresh owner for its
// parked core (s.c and s.id), for the caller to give a context (the driver
// is unlocked, so it may make one); else nothing (the zero ownerStart: the
// core went Free). d is the driver's stash, which only the driver's
// goroutine and the contexts it runs touch, one at a time.
func (e *Executor) step(d *stash, t *ctx, nested bool) ownerStart {
	if t.state != ctxReady && t.state != ctxIdle {
		panic("vcore: resume of a context that is " + t.state.String())
	}
	if testHookResume != nil {
		testHookResume(nested)
	}
	t.state = ctxRunning
	t.nested, t.d = nested, d
	msg, ok := t.next()
	if !ok {
		panic("vcore: a context ended while running")
	}
	next := t.to
	t.to, t.d = nil, nil
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
			s, _ := e.pass(me, c)
			return s
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
	return ownerStart{t: next}
}

// driveNested runs ready context r from context t, whose owner stint has
// just ended by handing its core to r (switchTo), and which its driver
// goroutine resumed: t calls r's next itself, as the driver would have.
// When r parks and its core needs a fresh owner, t is that owner (its
// start is stored in t, as drive stores it in an idle context) and
// driveNested reports true: t's body goes on with the new owner stint on
// its own stack. A park then costs one coroutine switch (out of r, into
// the context that is already running) instead of two (out to the driver,
// and into an idle context), and so does r's resume: a task that is woken
// and parks again, in turn with a child the core's owner runs (a Join of
// a child launched into a nursery), takes two switches per round where
// the driver would take four. Any other context to run next (a ready one
// r handed its core to, or the one a parked core passed to) t runs nested
// in turn, as drive would; once there is none (the core went Free, or an
// owner stint lost its core), driveNested reports false and t goes back
// to its driver, idle. A context run nested never runs one itself (see
// body), so nesting is one deep.
func (e *Executor) driveNested(t, r *ctx) bool {
	if t.nested {
		panic("vcore: a nested context ran another")
	}
	d := t.d
	for r != nil {
		s := e.step(d, r, true)
		if s.t == nil && s.c != nil {
			t.w.start(s.id)
			t.grant = s.c
			return true
		}
		r = s.t
	}
	return false
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
