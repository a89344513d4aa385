package kc

import (
	"sync/atomic"
	"time"
)

// join waits for j to be terminal on behalf of waiter w (nil: a goroutine
// outside the runtime). A pending j that is w's own unstarted child is run
// inline on the caller, which saves a park and a wake. It returns w's
// cancellation error if w is cancelled first, else nil.
//
// "First" is decided by j's state when the wait ends, not by which wake
// came first: if j is terminal (or finishing) by then, join returns nil
// (the caller reports j's outcome), even though w was cancelled. This is
// what makes the outcome of awaiting a failing descendant independent of
// timing: a failing job cancels its parent (walk included) while it is
// finishing, before it publishes its terminal state (finishLocked), and a
// parent's failure reaches its own parent only when the parent ends. So a
// waiter cancelled by the failure of the job it awaits always finds that
// job finishing or terminal, whether it failed before the wait began or
// while it was pending.
func (j *Job) join(w *Job) error {
	if w != nil {
		if w.IsCancelled() {
			return j.joinCancelled(w, false)
		}
		if j.parent == w && j.flags&flagDetached == 0 && j.claim() {
			j.runInline(w)
			if j.terminal() {
				return nil
			}
		}
		if j.parent != w && j.awaitedBy(w) {
			return ErrWaitCycle
		}
	}
	if j.wait(w, waitTerminal, 0, w != nil) == wakeCancel {
		return j.joinCancelled(w, true)
	}
	return nil
}

// runInline runs j, an unstarted child of w whose body the caller has
// claimed, on the calling goroutine, for a Join or Await by w: this saves a
// park and a wake, and is what makes awaiting a child just launched cheap.
//
// A body that calls runtime.Goexit ends the goroutine it runs on; here
// that is the goroutine waiting on w's behalf, which no one can save. j
// fails with ErrGoexit (run), and the Goexit goes on: the Join or Await
// never returns, and every body on the goroutine fails with ErrGoexit as
// its frames unwind. So that w's outcome does not depend on which goroutine
// waited for it (its body, or a goroutine its body started), the deferred
// check fails w with errInlineGoexit (which matches ErrGoexit) and cancels
// it, unless j's failure has done that already (failsParent) or w has
// ended. The check is a defer on this path only: Join and Await of a child
// the executor has started, and the rest of join, pay nothing for it.
func (j *Job) runInline(w *Job) {
	returned := false
	defer func() {
		if !returned && !j.failsParent() {
			w.failInlineGoexit()
		}
	}()
	j.run(nil) // recovers a panic: only a Goexit skips the next line
	returned = true
}

// failInlineGoexit fails and cancels j, unless it is terminal, because a
// child that a wait on j's behalf ran inline called runtime.Goexit (see
// runInline). Runs in a deferred call of the unwinding goroutine.
func (j *Job) failInlineGoexit() {
	j.lockSlow()
	if j.terminal() {
		j.mu.Unlock()
		return
	}
	j.recordFailureLocked(errInlineGoexit)
	j.extra().goexit = true
	if _, walk := j.requestCancelLocked(errInlineGoexit, byPropagation); walk {
		j.cancelWalkLocked()
	} else {
		j.mu.Unlock()
	}
}

// goexitRecorded reports whether failInlineGoexit failed j: a Goexit
// unwinding through j's body then needs no failure of its own (run). Taken
// to be the same Goexit: a later one of j's own body adds nothing to a
// job already failed by a Goexit.
func (j *Job) goexitRecorded() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.x != nil && j.x.goexit
}

// joinCancelled is join's answer once its waiter w is found cancelled
// (woken: by the wake of its wait): nil (the caller reports j's outcome)
// if j is terminal or finishing, else w's cancellation error. A finishing
// job (body done, no holds) becomes terminal once the OnCancel callbacks
// of a walk that met it have run (on a hookTask: walkFinishingLocked), so
// waiting for it is short as long as those callbacks do not block; and it
// must be waited for, because a failing j cancels its parent, and so may
// cancel w (the parent, or an unlisted sibling through the parent's down
// flag), before it is published terminal (finishLocked).
func (j *Job) joinCancelled(w *Job, woken bool) error {
	if woken && j.rt.faults.has(faultAwaitCancelHidesOutcome) {
		return w.cancelErr()
	}
	if !j.terminal() && finishing(j.state.Load()) {
		j.wait(nil, waitTerminal, 0, true)
	}
	if j.terminal() {
		return nil
	}
	return w.cancelErr()
}

// awaitedBy reports whether w is j or an attached descendant of j: then j
// cannot end before w does, and a wait by w for j could never return. It
// walks up from w and stops at j, at j's parent (below which j is not), or
// at a root or detached job (whose parent does not wait for it). Cost:
// O(levels between w and j's parent), paid only by a wait that is about to
// park, and never by the common wait for a child (j.parent == w), which the
// caller skips.
func (j *Job) awaitedBy(w *Job) bool {
	if j.rt.faults.has(faultNoWaitCycleCheck) {
		return false
	}
	for a := w; a != nil; a = a.parent {
		if a == j {
			return true
		}
		if a == j.parent || !a.attached() {
			return false
		}
	}
	return false
}

// result is the job's Result; it reads only what is immutable once the
// (sequentially consistent) state load has seen a terminal state.
func (j *Job) result() error {
	switch stateOf(j.state.Load()) {
	case Failed:
		return j.err
	case Cancelled:
		return j.cerr
	}
	if j.rt.faults.has(faultResultBeforeTerminal) {
		j.mu.Lock()
		defer j.mu.Unlock()
		return j.err
	}
	return nil
}

// Join waits until j is terminal and returns its Result. The wait is
// cancellable through w, the waiting job (nil from a plain goroutine): if w
// is cancelled first, Join returns w's cancellation error and j goes on.
// If j is terminal when the wait ends, Join returns j's Result even if w
// was cancelled meanwhile: a job joining a failing descendant gets that
// failure, not the cancellation the failure causes, whatever the timing.
// If w is j itself or an attached descendant of j, which j waits for, Join
// returns ErrWaitCycle at once instead of waiting forever. If j is w's
// attached child and its body has not started, Join runs it on the calling
// goroutine instead of waiting; should that body call runtime.Goexit, the
// Goexit ends the calling goroutine and Join does not return (see
// ErrGoexit).
func (j *Job) Join(w *Job) error {
	if !j.terminal() {
		if err := j.join(w); err != nil {
			return err
		}
	}
	return j.result()
}

// State returns j's current state. O(1), lock-free, except once for a job
// whose parent's cancellation has reached it only lazily (see Job.list):
// that call moves it to Cancelling, as the parent's walk would have.
func (j *Job) State() State {
	st := stateOf(j.state.Load())
	if st < Cancelling && j.parentDown() {
		// Record it, so that j cannot go on to end Completed: either this
		// wins and j ends Cancelled, or j ended first and we report that.
		j.takeParentCancel()
		st = stateOf(j.state.Load())
	}
	return st
}

// Result returns j's outcome once terminal: nil when Completed, the first
// failure when Failed, the cancellation error (matching ErrCancelled and
// wrapping the cause) when Cancelled. It is nil while j is not terminal.
func (j *Job) Result() error { return j.result() }

// TryResult is spec 04 try_get_result: (Result, true) once j is terminal,
// (nil, false) before.
//
// A job that its last child's end lets finish (a cancelled or closed
// nursery) ends just after that child is published terminal (see WaitAll),
// so right after a Join of the child, TryResult and State may still report
// j not ended. AwaitAll or Join of j wait for it.
func (j *Job) TryResult() (err error, done bool) {
	if !j.terminal() {
		return nil, false
	}
	return j.result(), true
}

// Errors returns every failure recorded on j, the first (its Result, when
// Failed) first: its body's failure and, unless j is a supervisor, its
// children's.
func (j *Job) Errors() []error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err == nil {
		return nil
	}
	out := []error{j.err}
	if j.x != nil {
		out = append(out, j.x.errs...)
	}
	return out
}

// WaitAll is spec 03 wait_all: it waits until j has no children (leases
// count as children). timeout 0 polls: ErrAgain if children remain; > 0 waits
// at most that long, then ErrTimeout; < 0 waits forever. It does not close j.
//
// A child counts until its end has reached j, which comes just after the
// child is published terminal, and later still on an executor that batches
// the ends of the children it runs in a row (Worker; stealing and vcore
// do). So a poll right after a Join of j's last child may still return
// ErrAgain; a wait (timeout other than 0) ends as soon as that end arrives.
func (j *Job) WaitAll(timeout time.Duration) error {
	if timeout == 0 {
		if holds(j.state.Load()) > 0 {
			return ErrAgain
		}
		return nil
	}
	if j.wait(nil, waitChildren, max(timeout, 0), true) == wakeTimeout {
		return ErrTimeout
	}
	return nil
}

// AwaitAll is spec 04 await_all: Close j, wait for it (cancellable through
// w, like Join) and return its Result. If w is j or an attached descendant
// of j, it returns ErrWaitCycle at once and does not close j.
func (j *Job) AwaitAll(w *Job) error {
	if w != nil && j.parent != w && !j.terminal() && j.awaitedBy(w) {
		return ErrWaitCycle
	}
	j.Close()
	return j.Join(w)
}

// Sleep pauses the body for d, or until j is cancelled, in which case it
// returns the cancellation error. Inside Shield it always sleeps d. The
// timer is stopped on return: a finished Sleep leaves no timer armed.
func (j *Job) Sleep(d time.Duration) error {
	if err := j.Check(); err != nil || d <= 0 {
		return err
	}
	rt := j.rt
	s := &sleepWait{}
	w := &s.w
	w.p.init(true)
	w.hook.w = w
	if how := j.addHook(&w.hook); how != hookLinked {
		return j.Check()
	}
	s.t.p = &w.p
	rt.arm(d, &s.t)
	rt.ex.Park(&w.p)
	slowPoint()
	s.t.Stop()
	if w.p.reason.Load() == wakeCancel {
		// The walk unlinked the hook (under j.mu) before it woke us: only
		// the cause is left to read.
		return j.cancelErr()
	}
	j.mu.Lock()
	j.removeHookLocked(&w.hook)
	j.mu.Unlock()
	return nil
}

// Yield lets other tasks and goroutines run (the executor's Yielder, else
// runtime.Gosched), then checks for cancellation.
func (j *Job) Yield() error {
	j.rt.yield()
	if j.rt.faults.has(faultYieldIgnoresShield) && j.state.Load()&bitCancel != 0 {
		return j.cancelErr()
	}
	return j.Check()
}

// Lease is spec 02 PromiseChildLease: a hold on j that keeps it from
// becoming terminal (it counts as a child, for WaitAll too) until release is
// called. Releasing twice is harmless. The release that lets j finish ends
// it as the end of its body would, and never runs user code on the
// releasing goroutine: if j failed, and its failure cancels its parent,
// the parent is cancelled, its other children included, before the release
// returns, but the OnCancel callbacks that cancellation claims run on a
// task of the executor, as those of every cancel walk do. Lease on a
// terminal job returns ErrClosed.
func (j *Job) Lease() (release func(), err error) {
	for s := j.state.Load(); ; s = j.state.Load() {
		if stateOf(s).Terminal() || finishing(s) {
			return nil, ErrClosed
		}
		if j.state.CompareAndSwap(s, s+oneHold) {
			break
		}
	}
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) || j.rt.faults.has(faultLeaseReleaseUnguarded) {
			j.release(1, nil)
		}
	}, nil
}
