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
// it). It returns what c must tell its driver: msgSwitch with c.to set,
// when a ready coroutine should run (the driver pools c and resumes that
// one), or msgExit, when the driver must stop. Either way c's batch is
// flushed.
func (e *Executor) runLoop(c *coro) coroMsg {
	for {
		t, r := e.findWork(c)
		if r != nil {
			c.to = r
			return msgSwitch
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

// resume runs c on driver d until c yields, and returns what it said. A
// body's Goexit ends d here (iter.Pull passes it on).
func (d *worker) resume(c *coro) coroMsg {
	c.drv = d
	c.state = coroRunning
	msg, ok := c.next()
	if !ok {
		panic("stealing: a loop coroutine ended while running")
	}
	return msg
}

// drive is a driver's loop: it runs loop coroutines, starting with c,
// until one tells it to stop running tasks. It hands off the wait of a
// coroutine that parks and continues the worker loop on another one.
func (e *Executor) drive(d *worker, c *coro) {
	for {
		switch d.resume(c) {
		case msgSuspend:
			p := c.park
			c.park, c.drv = nil, nil
			c.state = coroParked // before Suspend: after it, c may run elsewhere at once
			if !p.Suspend(c) {
				continue // the wake came first: c goes on at once
			}
			c = e.afterSuspend(d)
		case msgYield:
			if c.state != coroYielding {
				panic("stealing: a yield from a coroutine that is " + c.state.String())
			}
			c.drv = nil
			e.yielded(c) // after it, c may run elsewhere at once
			c = e.afterSuspend(d)
		case msgSwitch:
			r := c.to
			c.to, c.drv = nil, nil
			e.stashIdle(d, c)
			c = r
		case msgExit:
			c.drv = nil
			e.stashIdle(d, c)
			e.flushIdle(d)
			return
		}
	}
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
