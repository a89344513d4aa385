package stealing

import "github.com/kcbench/kcbench/runtimes/kc"

const (
	injectEvery = 61 // a worker checks the injector first on every 61st task (fairness)
	spinRounds  = 4  // steal passes of one spin, with a Gosched between them (as many as Go's findRunnable)
	// osYieldAfter is how many Yields in a row may find nothing queued
	// before each further one also gives the thread up to the OS (see
	// Yield): a few microseconds of polling, more than a task that is
	// about to park usually needs.
	osYieldAfter = 16
)

// worker is the loop state of one worker: a driver goroutine and the loop
// coroutine it runs at the moment (see coro.go), with the one that runs
// nested under that one, if any (runNested). It belongs to the driver and to
// those coroutines, which run one at a time (each blocked in the next call
// of the one it resumed): no other goroutine ever sees it. Where the worker
// is in its loop (running a task, searching its P's ring, spinning to steal,
// idle) is the code position plus spinning; the shared view is the counters
// in schedState.
type worker struct {
	idle     *coro  // the stash of idle coroutines (see stashIdle), through link
	nidle    int    // the stash's length
	spinning bool   // counted in schedState.spinning
	burst    bool   // its last spin found a batch (half a ring, or the injector's): the next spins for idleSpin (spinFor)
	ticks    uint32 // findLocal calls, for the injector fairness check
	rnd      uint32 // xorshift state for the victim order
}

// wake starts or wakes a spinning worker if no worker is spinning and fewer
// than the target are running (Go's wakep). Called after publishing work. The
// checks are a Dekker pair with a worker going idle: the publisher stores the
// work and then loads the counters; the worker decrements the counters and
// then loads the queues (seq-cst both), so at least one of them sees the
// other. Spawn's store is the swap of its P's LIFO slot (see ring.put for the
// task the swap displaces to the FIFO). A spinner that finds work and was the
// last one calls wake again, so a burst of spawns that skipped waking
// (because it saw a spinner) still ramps the workers up one by one.
//
// A publisher that skips its wake relies on a unit it saw in the counters:
// a worker that holds a slot or spins looks at every queue before it gives
// its units up (findWork's idle path), or gives its slot up only while
// enough others stay counted (retire). wake's own units are provisional: it
// takes the spinning token (0 -> 1) and then a slot for the spinner, and a
// worker may take the last slot in between (a worker going idle that saw
// work takes its slot back), so the add overshoots and wake gives both
// back. Meanwhile other publishers that saw the token or the extra slot
// returned, and a worker that counted the extra slot may have retired
// without looking (running was over the target when it finished a task).
// This is the lost wake-up TestWakeWithoutBackstop found: Spawn put a task
// in the LIFO slot and saw a slot free; a worker going idle saw the task
// and took its slot back before Spawn's add; Spawn's add overshot; before
// Spawn undid it, that worker stole the task the put had displaced to the
// FIFO, ran it, saw running over the target and retired; Spawn then gave
// its units back and returned, leaving the LIFO task with a slot free and
// every worker idle. So after giving its units back, wake looks at the
// counters again and retries while a slot is free and nobody spins: a
// worker that left during the overshoot shows as the free slot (its
// decrement came before our undo), and a publisher that skipped because of
// our units did so before the undo too, so its work is there for the
// spinner we start. (Go's wakep solves the same race with sched.lock and
// sched.needspinning.) A retry needs other workers to have taken a slot
// and given one up during the pass, so the loop ends; the common path is
// one pass, and Spawn's usual early return (a spinner, or no slot free)
// costs what it did.
func (e *Executor) wake() {
	if e.mon.asleep.Load() {
		e.mon.wake()
	}
	s := &e.sched
	for s.spinning.Load() == 0 && s.running.Load() < e.limit() {
		if !s.spinning.CompareAndSwap(0, 1) {
			return // someone else is waking a spinner, or a worker began to spin
		}
		if testHookWake != nil {
			testHookWake(hookBeforeAdd)
		}
		if s.running.Add(1) <= e.limit() {
			e.startSpinner()
			return
		}
		if testHookWake != nil {
			testHookWake(hookBeforeUndo)
		}
		s.running.Add(-1)
		s.spinning.Add(-1)
	}
}

// startSpinner hands a running, spinning slot (already counted by the
// caller) to an idle worker, or to a new goroutine if none is idle.
// The caller need not be counted in wg, so Close may be under way: the
// start goes through e.starts (see package startgate).
func (e *Executor) startSpinner() {
	select {
	case e.idle <- struct{}{}:
		return
	default:
	}
	if !e.starts.Begin(&e.sched.closed) {
		e.sched.running.Add(-1)
		e.sched.spinning.Add(-1)
		return
	}
	if testHookStart != nil {
		testHookStart()
	}
	e.wg.Add(1)
	e.starts.End()
	go e.work()
}

// payDebt takes over one unit of debt, preferably from the caller's P's
// shard, and reports whether it did; a worker that does has no slot and
// must leave (go idle or exit). Cost when there is no debt: one load per P.
func (e *Executor) payDebt() bool {
	n := len(e.debt)
	k := procPin()
	procUnpin()
	if k >= n { // GOMAXPROCS grew since New
		k %= n
	}
	for range n {
		d := &e.debt[k].n
		for v := d.Load(); v > 0; v = d.Load() {
			if d.CompareAndSwap(v, v-1) {
				return true
			}
		}
		if k++; k == n { // a wrap, not a modulo: a division costs more than the loads
			k = 0
		}
	}
	return false
}

// retire gives up the caller's running slot if running is over the target;
// it reports whether it did. One atomic add in the common case (a burst of
// tasks returning from Park, each over the target); if concurrent retirers
// took running below the target, it takes its slot back. A retiring worker
// does not look at the queues: at least limit slots stay counted, each a
// worker that will look before it leaves, or a slot wake took
// provisionally, which wake gives back only to look at the counters again
// (see wake).
func (e *Executor) retire() bool {
	if e.sched.running.Add(-1) >= e.limit() {
		return true
	}
	e.sched.running.Add(1)
	return false
}

// findWork returns the next thing for loop coroutine c to do: a ready
// coroutine to resume (c's batch then goes on with it, or is flushed:
// kc.Worker.Pass), which comes before any task, or a task to run. It goes
// idle as long as there is neither;
// (nil, nil) once the executor is closed, or enough workers are idle
// already (see idleWait), and the worker should exit.
func (e *Executor) findWork(c *coro) (*kc.Task, *coro) {
	w := c.drv
	for {
		t, r := e.findLocal(w)
		if t == nil && r == nil && e.yieldQ.n.Load() != 0 {
			t = e.beforeYielded(w)
			if t == nil {
				r = e.takeYielded() // after the local work: see Yield
			}
		}
		if t != nil || r != nil {
			e.stopSpinning(w)
			if r != nil {
				c.kw.Pass(&r.kw) // c runs r (runNested) or hands it on and goes idle: its batch goes on with r, or is dropped
			}
			return t, r
		}
		// Out of local work: drop the batched releases before spinning or
		// sleeping, so no parent waits on a worker that is not running.
		c.kw.Flush()
		if e.sched.closed.Load() {
			e.exit(w)
			return nil, nil
		}
		if !w.spinning && 2*e.sched.spinning.Load() < e.sched.running.Load() {
			w.spinning = true // at most half of the running workers spin
			e.sched.spinning.Add(1)
		}
		if w.spinning {
			if t, r := e.spinFor(w); t != nil || r != nil {
				e.stopSpinning(w)
				return t, r
			}
		}
		// Go idle: drop the counts, then look once more (the Dekker check
		// against wake), then block.
		if w.spinning {
			w.spinning = false
			e.sched.spinning.Add(-1)
		}
		if testHookIdle != nil {
			testHookIdle()
		}
		e.sched.running.Add(-1)
		if e.anyWork() && !e.sched.closed.Load() {
			e.sched.running.Add(1)
			continue
		}
		e.flushIdle(w) // the stash goes where trims and Close see it
		if !e.idleWait(w) {
			return nil, nil
		}
	}
}

// beforeYielded is the look at the other Ps' rings that a driver makes
// before it takes a yielded coroutine back (see Yield): half of another
// ring's FIFO, else a LIFO slot that held the same task across a Gosched.
// A yielder goes to the back of the whole line, and the line includes the
// queues of a P that this worker left (its goroutine moved to another P),
// which no other worker may be serving: without the look, a body that
// yields until its queued children have run would take itself back again
// and again while they wait on the P it left.
func (e *Executor) beforeYielded(w *worker) *kc.Task {
	if t := e.stealPass(w); t != nil {
		return t
	}
	return e.stealNext(w)
}

// findLocal returns a ready coroutine if there is one (takeReady), else checks
// the ring of the P the worker runs on, LIFO slot first, then the injector. On
// every injectEvery-th call it checks the injector, the yield list and the
// ready list first and the ready slot last, so that wakes that keep coming
// cannot starve queued tasks, and on every injectEvery-th task taken from a
// ring it takes the ring's FIFO before its LIFO slot, so that neither the
// injector nor the FIFO can be starved (spec 05 fairness rule). The FIFO's
// turn is counted on the ring (its progress), not on the worker: temporary
// workers come and go, and a count that starts again with each new worker
// could keep the FIFO waiting for as long as they churn. Other Ps' queues
// are not looked at here, only when spinning: the work of a P that no
// worker gets to reaches the global queues through the monitor (see scan).
func (e *Executor) findLocal(w *worker) (*kc.Task, *coro) {
	w.ticks++
	fair := w.ticks%injectEvery == 0
	if !fair {
		if r := e.takeReady(); r != nil {
			return nil, r
		}
	} else if t := e.fromInjector(); t != nil {
		return t, nil
	} else if r := e.takeYielded(); r != nil {
		return nil, r
	} else if r := e.takeReadyList(); r != nil {
		return nil, r // wakes that keep refilling this P's slot must not starve the list
	}
	pid := procPin()
	if pid < len(e.rings) {
		r := &e.rings[pid]
		var t *kc.Task
		if r.progress()%injectEvery == 0 { // the FIFO before the LIFO slot, which two tasks spawning each other could keep full
			t = r.takeFIFO()
		}
		if t == nil {
			t = r.pop()
		}
		if t != nil {
			procUnpin()
			return t, nil
		}
	}
	procUnpin()
	if fair {
		if r := e.takeReady(); r != nil {
			return nil, r
		}
	}
	return e.fromInjector(), nil
}

// fromInjector takes a share of the injector: one task to return, the rest
// into the ring of the caller's P.
func (e *Executor) fromInjector() *kc.Task {
	t, n := e.inj.pop(e.rings, int(e.limit()))
	if n > 1 {
		e.wake() // there is more work than this worker
	}
	return t
}
