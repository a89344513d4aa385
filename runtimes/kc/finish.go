package kc

// release drops n holds on j (children that ended, a walk, a Lease) on
// behalf of w (see Worker; nil releases nothing further in batches). The
// release that leaves no holds wakes j's WaitAll waiters and, if the body
// is done, finishes j.
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
		j.takeParentCancelFinishing() // j (unlisted, held by a lease) missed the parent's walk
	}
	if rt.tracer == nil && !rt.faults.on() {
		for s := j.state.Load(); s&(bitSlow|bitCancel) == 0; s = j.state.Load() {
			if j.state.CompareAndSwap(s, s&^stateMask|bitWalked|uint64(Completed)) {
				rt.stats.add(cCompleted)
				j.released(Completed, w, false)
				return
			}
		}
	}
	j.mu.Lock()
	j.finishLocked(w)
}

// finishLocked moves j to its terminal state, wakes its waiters, drops its
// hooks (no callback outlives its job) and releases its parent. It runs no
// user code; a failure it applies to the parent runs the parent's cancel
// walk on the caller (its OnCancel callbacks on a hookTask), whoever the
// caller is: the end of a body, a child's end, a walk's, a Lease release.
// Called with j.mu held; returns with it released.
func (j *Job) finishLocked(w *Worker) {
	rt := j.rt
	s := j.state.Load()
	if stateOf(s).Terminal() { // only with faultNoWaitChildren
		j.mu.Unlock()
		return
	}
	if s&bitWalking != 0 {
		// A walk of finishing j is firing its hooks: its end finishes j
		// (walkFinishingLocked).
		j.state.Or(bitFinishDeferred)
		j.mu.Unlock()
		return
	}
	st := endState(s, j.err)
	// A failure that cancels the parent does so, walk included, before j
	// is published terminal: whoever sees j terminal (State, Join, Await,
	// a WaitAll) then also sees its parent cancelled and refusing
	// children, its siblings cancelled, and the parent's Result is this
	// failure, not a later one. A cancellable wait for j that the walk
	// wakes finds j finishing and waits on for its outcome (joinCancelled).
	// j.mu is released meanwhile (the parent's lock is never taken under a
	// child's, and the walk cancels j too); j stays finishing, so nothing
	// but waiters, hooks and failures can be added to it.
	applied := false
	if st == Failed && j.failsParent() && !rt.faults.has(faultFailurePublishedFirst) {
		// While j.mu is released, a cancellation that reaches j must not
		// start a walk of it (walkFinishingLocked), whose end would finish
		// j a second time: mark the walk done, as a failure's own walk has
		// normally done already.
		if s&bitWalked == 0 {
			j.markWalkedLocked()
		}
		j.mu.Unlock()
		j.parent.childFailed(j)
		applied = true
		j.mu.Lock()
		if s = j.state.Load(); stateOf(s).Terminal() { // only with faultNoWaitChildren
			j.mu.Unlock()
			return
		}
		st = endState(s, j.err)
	}
	// Count before publishing the state and waking the waiters: a woken
	// waiter then sees the job counted. (A lock-free State load may still
	// see a job terminal before it is counted: finish's one-CAS path, like
	// bodyReturned's and endCancelled's, counts after its CAS; Stats says
	// that a snapshot taken while jobs run may mix moments.)
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
		j.markWalkedLocked()
	}
	for n := j.hooks; n != nil; n = n.next {
		n.linked = false
	}
	j.hooks = nil
	woken := j.takeWaitersLocked(waitTerminal)
	if rt.tracer != nil {
		rt.trace(Event{Kind: EvJobFinalize, Job: j, State: st})
	}
	j.mu.Unlock()
	// Release the parent before waking the waiters: a wait that blocked on
	// j's end (Join, Await, AwaitAll) then returns with j's hold on its
	// parent gone, so WaitAll(0) on the parent right after it counts no j.
	// (A wait that finds j terminal at once may run before this release.)
	j.released(st, w, applied)
	wakeWaiters(woken)
}

// markWalkedLocked marks j's walk done (bitWalked) and closes its Done
// channel, if made, as bitWalked promises; for a job whose walk never
// began. Under j.mu.
func (j *Job) markWalkedLocked() {
	j.state.Or(bitWalked)
	if j.x != nil && j.x.done != nil {
		close(j.x.done)
	}
}

// endState is the terminal state of a job with state word s and first
// failure err.
func endState(s uint64, err error) State {
	switch {
	case err != nil && s&bitTimedOut == 0:
		return Failed
	case s&bitCancel != 0:
		return Cancelled
	}
	return Completed
}

// failsParent reports whether j's failure fails and cancels its parent:
// j is attached and not a scope (whose caller gets the error), and the
// parent is not a supervisor.
func (j *Job) failsParent() bool {
	return j.attached() && j.flags&flagScope == 0 &&
		(j.parent.flags&flagSupervisor == 0 || j.rt.faults.has(faultSupervisorPropagates))
}

// childFailed applies the failure of c, which is finishing Failed, to j
// (c's parent, see failsParent): j records it and is cancelled, and its
// cancel walk runs on the caller, which runs no user code (the walk's
// OnCancel callbacks run on a hookTask). c's hold keeps j from finishing
// meanwhile.
func (j *Job) childFailed(c *Job) {
	j.lockSlow()
	if j.terminal() {
		j.mu.Unlock()
		return
	}
	j.recordFailureLocked(c.err)
	walk := false
	if !j.rt.faults.has(faultNoCancelSiblings) {
		_, walk = j.requestCancelLocked(c.err, byPropagation)
	}
	if walk {
		j.cancelWalkLocked()
	} else {
		j.mu.Unlock()
	}
}

// takeParentCancelFinishing is takeParentCancel for j's finisher (see
// finish): j, finishing, missed its parent's walk, and takes the parent's
// cancellation itself, with walkFinishingLocked's walk, which runs no user
// code (a finisher may be on a Lease release).
func (j *Job) takeParentCancelFinishing() {
	cause := j.parent.cause()
	j.lockSlow()
	// walk means this request moved j, so j's walk has not begun
	// (bitWalked comes with bitCancel or the terminal state).
	if _, walk := j.requestCancelLocked(cause, byPropagation); walk {
		j.walkFinishingLocked()
	} else {
		j.mu.Unlock()
	}
}

// released tells whoever holds a terminal job that it ended in state st:
// its parent, or the runtime for a root or detached job. applied reports
// that a failure was already applied to the parent (childFailed). A
// child that is not listed and did not fail only drops its hold, in w's
// batch if w is not nil.
func (j *Job) released(st State, w *Worker, applied bool) {
	p := j.parent
	switch {
	case !j.attached():
		j.rt.topDone(j)
	case st == Failed || j.state.Load()&bitListed != 0 || j.rt.faults.on():
		p.childDone(j, st == Failed && !applied)
		p.release(1, w)
	case w != nil:
		w.owe(p)
	default:
		p.release(1, nil)
	}
}

// childDone unlinks a terminal listed child and, if fail, applies its
// failure (childFailed; finishLocked does that before the child is
// published, unless a fault says otherwise). c's hold keeps j from
// finishing meanwhile; the caller drops it afterwards.
func (j *Job) childDone(c *Job, fail bool) {
	j.lockSlow()
	if c.state.Load()&bitListed != 0 {
		j.unlinkChildLocked(c)
	}
	j.mu.Unlock()
	if fail && c.failsParent() {
		j.childFailed(c)
	}
}
