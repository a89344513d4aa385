package stealing

import "github.com/kcbench/kcbench/internal/goruntime"

// work is a worker's driver goroutine, born spinning with its slot
// counted. It runs the worker loop on loop coroutines (drive); where
// goroutine identities are not available (goruntime.GOK false), nothing
// could ever suspend one, so it runs the loop on its own stack.
func (e *Executor) work() {
	defer e.wg.Done()
	w := &worker{spinning: true, rnd: uint32(fastSeed())}
	var plain *coro // the loop's state without coroutines
	clean := false
	defer func() {
		if !clean { // a body called runtime.Goexit: give the slot back
			if plain != nil {
				plain.kw.Flush()
			}
			e.flushIdle(w)
			if !e.payDebt() {
				e.sched.running.Add(-1)
			}
			if e.anyWork() {
				e.wake()
			}
		}
	}()
	if goruntime.GOK {
		c := e.pool.get()
		if c == nil {
			c = e.newCoro()
		}
		e.drive(w, c)
	} else {
		plain = &coro{e: e, drv: w}
		e.runLoop(plain)
	}
	clean = true
}

// runLoop is the worker loop, run by loop coroutine c for its driver
// c.drv (which changes when a task of c parks and another driver resumes
// it). A ready coroutine it finds comes before any task. If c was resumed
// by its driver goroutine, c resumes that coroutine itself (runNested)
// and goes on with the loop once it parks or hands c another one; if c
// runs nested, under another loop coroutine, it hands the ready one to
// that coroutine (msgSwitch with c.to set) and goes idle, so that nesting
// stays one deep. It returns what c must tell whoever resumed it:
// msgSwitch, or msgExit when the driver must stop. Either way c's batch
// is flushed.
func (e *Executor) runLoop(c *coro) coroMsg {
	for {
		t, r := e.findWork(c)
		if r != nil {
			if c.nested {
				c.to = r
				return msgSwitch
			}
			if e.runNested(c, r) {
				return msgExit
			}
			continue
		}
		if t == nil {
			return msgExit
		}
		c.idleYields, c.due = 0, 0
		t.RunOn(&c.kw)
		if c.next != nil {
			// A body that left its thread locked: its lock ends with it, as
			// it would with a goroutine of its own, so that the next task
			// runs as it would anywhere, and c's next switch (which the
			// runtime forbids with a lock c was not made with) cannot throw.
			goruntime.UnlockOSThreadAll()
		}
		// A task that parked on the blocking path came back without a slot
		// (see Park); whichever worker ends a task first takes that debt
		// over and leaves, without touching running. Else, if the monitor
		// lowered the target, retire.
		if (e.payDebt() || e.sched.running.Load() > e.limit() && e.retire()) && !e.leave(c) {
			return msgExit
		}
	}
}

// leave flushes c's batch, hands its driver's idle stash to the pool, and
// goes idle (see idleWait).
func (e *Executor) leave(c *coro) bool {
	c.kw.Flush()
	e.flushIdle(c.drv)
	return e.idleWait(c.drv)
}

// resume runs c on driver d until c yields, and returns what it said. The
// caller is d's goroutine (nested false) or a loop coroutine that d runs
// (nested true, see runNested). A body's Goexit ends the caller here
// (iter.Pull passes it on), and so, through the loop coroutine that a
// nested c ran under, the driver.
func (d *worker) resume(c *coro, nested bool) coroMsg {
	if testHookResume != nil {
		testHookResume(nested)
	}
	c.drv = d
	c.nested = nested
	c.state = coroRunning
	msg, ok := c.next()
	if !ok {
		panic("stealing: a loop coroutine ended while running")
	}
	return msg
}

// settle does what loop coroutine c told d's goroutine or the loop
// coroutine that resumed it (msg) and returns the coroutine to resume next:
// c again if its Park's wake came before the hand-off (Suspend reported
// false), the ready coroutine c handed over (msgSwitch; c goes idle), or
// nil if c parked or yielded (the caller goes on with the worker loop on a
// coroutine of its choice). exit reports msgExit: the driver must stop
// (c goes idle).
func (e *Executor) settle(d *worker, c *coro, msg coroMsg) (next *coro, exit bool) {
	switch msg {
	case msgSuspend:
		p := c.park
		c.park, c.drv = nil, nil
		c.state = coroParked // before Suspend: after it, c may run elsewhere at once
		if !p.Suspend(c) {
			return c, false // the wake came first: c goes on at once
		}
		return nil, false
	case msgYield:
		if c.state != coroYielding {
			panic("stealing: a yield from a coroutine that is " + c.state.String())
		}
		c.drv = nil
		e.yielded(c) // after it, c may run elsewhere at once
		return nil, false
	case msgSwitch:
		r := c.to
		c.to, c.drv = nil, nil
		e.stashIdle(d, c)
		return r, false
	default: // msgExit
		c.drv = nil
		e.stashIdle(d, c)
		return nil, true
	}
}

// drive is a driver's loop: it runs loop coroutines, starting with c,
// until one tells it to stop running tasks. It hands off the wait of a
// coroutine that parks and continues the worker loop on another one.
func (e *Executor) drive(d *worker, c *coro) {
	for {
		next, exit := e.settle(d, c, d.resume(c, false))
		if exit {
			e.flushIdle(d)
			return
		}
		if next == nil {
			next = e.afterSuspend(d)
		}
		c = next
	}
}

// runNested resumes ready coroutine r from loop coroutine c, which its
// driver goroutine resumed, and returns once r parks or yields: c then goes
// on with the worker loop where it was, between two tasks. A ready
// coroutine that r hands over (r's task ended and r found it) c resumes
// in turn, as the driver would. So a park costs one coroutine switch (out
// to c) instead of two (out to the driver, and into the next loop
// coroutine), and so does the resume of a ready coroutine that c finds:
// a task that is woken and parks again, in turn with a child that c runs
// (a Join of a child launched into a nursery), takes two switches per
// round where the driver alone would take four. r runs nested: it never
// resumes a ready coroutine itself (see runLoop), so no chain of loop
// coroutines waits under one another. It reports whether the driver must
// stop (a nested coroutine said msgExit); c's batch is empty throughout
// (findWork passed it on to r, or flushed it).
func (e *Executor) runNested(c, r *coro) (exit bool) {
	if c.nested {
		panic("stealing: a nested loop coroutine resumed another")
	}
	d := c.drv
	for r != nil {
		r, exit = e.settle(d, r, d.resume(r, true))
		if exit {
			return true
		}
	}
	return false
}

// afterSuspend returns the coroutine on which d goes on: a ready one
// (takeReady), else an idle one (d's stash, then the pool), else a new one.
func (e *Executor) afterSuspend(d *worker) *coro {
	if r := e.takeReady(); r != nil {
		return r
	}
	if c := e.takeIdle(d); c != nil {
		return c
	}
	return e.newCoro()
}
