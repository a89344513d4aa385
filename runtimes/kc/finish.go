package kc

// release drops n holds on j (children that ended, a lease, a walk) on
// behalf of w (see Worker; nil releases nothing further in batches). The
// release that leaves no holds wakes j's WaitAll waiters and, if the body is
// done, finishes j.
func (j *Job) release(n uint64, w *Worker) {
	s := j.state.Add(-n * oneHold)
	if holds(s) != 0 {
		return
	}
	if s&bitBodyDone != 0 {
		j.finish(w)
		return
	}
	// A WaitAll waiter sets bitWaitAll by an RMW on the same word before it
	// checks the holds (wait): either it saw holds left, and this Add shows
	// the bit, or it saw none and did not wait. Under the lock, look again:
	// a child attached since this Add makes the waiters registered now wait
	// for it (waking them here would end a WaitAll while a child it waits
	// for runs), and that child's end wakes them.
	if s&bitWaitAll != 0 {
		j.mu.Lock()
		if s := j.state.Load(); holds(s) == 0 && s&bitBodyDone == 0 {
			j.wakeWaitersLocked(waitChildren)
		}
		j.mu.Unlock()
	}
}

// finish moves j to its terminal state. It is called once, by the goroutine
// whose read-modify-write made finishing(state) true (see state.go). Without
// bitSlow and cancellation, no one else has registered anything on j, so
// one CAS publishes Completed; otherwise finishLocked does the work.
func (j *Job) finish(w *Worker) {
	rt := j.rt
	if j.parentDown() && j.state.Load()&bitCancel == 0 {
		j.takeParentCancel() // j (unlisted, held by a lease) missed the parent's walk
	}
	if rt.tracer == nil && !rt.faults.on() {
		for s := j.state.Load(); s&(bitSlow|bitCancel) == 0; s = j.state.Load() {
			if j.state.CompareAndSwap(s, s&^stateMask|bitWalked|uint64(Completed)) {
				rt.stats.add(cCompleted)
				j.released(Completed, w)
				return
			}
		}
	}
	j.mu.Lock()
	j.finishLocked(w)
}

// finishLocked moves j to its terminal state, wakes its waiters, drops its
// hooks (no callback outlives its job) and releases its parent. It runs no
// user code. Called with j.mu held; returns with it released.
func (j *Job) finishLocked(w *Worker) {
	rt := j.rt
	s := j.state.Load()
	if stateOf(s).Terminal() { // only with faultNoWaitChildren
		j.mu.Unlock()
		return
	}
	st := Completed
	switch {
	case j.err != nil && s&bitTimedOut == 0:
		st = Failed
	case s&bitCancel != 0:
		st = Cancelled
	}
	// Count before publishing the state: whoever sees the job terminal (a
	// woken waiter, a lock-free State load) then sees it counted.
	switch st {
	case Completed:
		rt.stats.add(cCompleted)
		if rt.faults.has(faultDoubleCount) {
			rt.stats.add(cCompleted)
		}
	case Failed:
		rt.stats.add(cFailed)
	case Cancelled:
		rt.stats.add(cCancelled)
	}
	j.setStateLocked(st)
	if s&bitWalked == 0 {
		j.state.Or(bitWalked)
		if j.x != nil && j.x.done != nil {
			close(j.x.done)
		}
	}
	for n := j.hooks; n != nil; n = n.next {
		n.linked = false
	}
	j.hooks = nil
	var buf [4]*waiter
	woken := j.takeWaitersLocked(waitTerminal, buf[:0])
	if rt.tracer != nil {
		rt.trace(Event{Kind: EvJobFinalize, Job: j, State: st})
	}
	j.mu.Unlock()
	// Release the parent before waking the waiters: a wait that blocked on
	// j's end (Join, Await, AwaitAll) then returns with j's hold on its
	// parent gone, so WaitAll(0) on the parent right after it counts no j.
	// (A wait that finds j terminal at once may run before this release.)
	j.released(st, w)
	for _, wt := range woken {
		wt.p.wake(wakeDone)
	}
}

// released tells whoever holds a terminal job that it ended in state st:
// its parent, or the runtime for a root or detached job. A child that is
// not listed and did not fail only drops its hold, in w's batch if w is
// not nil.
func (j *Job) released(st State, w *Worker) {
	p := j.parent
	switch {
	case !j.attached():
		j.rt.topDone(j)
	case st == Failed || j.state.Load()&bitListed != 0 || j.rt.faults.on():
		p.childDone(j, st)
		p.release(1, w)
	case w != nil:
		w.owe(p)
	default:
		p.release(1, nil)
	}
}

// childDone unlinks a terminal listed child and applies its failure: unless
// j is a supervisor or c a scope (whose caller gets the error), j records
// the failure and is cancelled, which cancels c's siblings. c's hold keeps
// j from finishing meanwhile; the caller drops it afterwards.
func (j *Job) childDone(c *Job, st State) {
	f := j.rt.faults
	j.lockSlow()
	if c.state.Load()&bitListed != 0 {
		j.unlinkChildLocked(c)
	}
	walk := false
	if st == Failed && c.flags&flagScope == 0 && !j.terminal() &&
		(j.flags&flagSupervisor == 0 || f.has(faultSupervisorPropagates)) {
		j.recordFailureLocked(c.err)
		if !f.has(faultNoCancelSiblings) {
			_, walk = j.requestCancelLocked(c.err, byPropagation)
		}
	}
	if walk {
		j.cancelWalkLocked()
	} else {
		j.mu.Unlock()
	}
}
