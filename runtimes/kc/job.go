package kc

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Func is a job body. It receives its own job, which is also its
// context.Context, cancellation source and parent for new children.
type Func func(j *Job) error

// runBody lets a Func be stored in a bodyRunner without allocating.
func (f Func) runBody(j *Job) error { return f(j) }

// bodyRunner is what a job runs: a Func, or a *Deferred[T] that also stores
// the value its body returns. Both are pointer-shaped, so storing one in the
// interface does not allocate.
type bodyRunner interface{ runBody(j *Job) error }

// jobFlags are fixed when a job is created and never change.
type jobFlags uint32

const (
	flagDetached     jobFlags = 1 << iota // not in the parent's child list
	flagSupervisor                        // ignores child failures
	flagScope                             // Scope/SupervisorScope/WithTimeout: the caller gets the failure; the parent does not
	flagOpen                              // made by Open: no body; Close or its cancel walk ends it
	flagDeadline                          // x.deadline is set (immutable)
	flagRunCancelled                      // the body runs even if the job is cancelled before it starts (actors, producers)

	// flagCoreTask marks a core task: not a job of the tree, but work the
	// core hands to the executor through Spawn, as a Job because that is
	// what a Task is (hookTask). It is made with bitCancel set, so that
	// run reaches it on the path of bodies skipped by a cancellation,
	// which keeps its check off the path of every other body; there run
	// calls its body and marks it terminal, and nothing else: no state
	// transition of the tree, no Stats, no parent or runtime to release.
	flagCoreTask
)

// Job is a node of the job tree (see the package doc for its state machine).
// A *Job is also a context.Context. Its methods are safe for concurrent use,
// except Shield, which belongs to the job's own body.
//
// Size: 128 bytes on 64-bit platforms (spec 01 4.20 asks <= 128); everything
// rarely needed lives in the lazily allocated jobExtra.
type Job struct {
	// First cache line: what running a job reads, and what its children
	// read of it (down, cerr). Nothing here is written on the hot paths, so
	// the line stays shared between the cores that run a parent's children.
	rt     *Runtime   // immutable
	parent *Job       // immutable; nil for a root
	body   bodyRunner // immutable; nil for a nursery made by Open
	flags  jobFlags   // immutable

	// down is 1 once j's cancel walk has begun: from then on j's
	// cancellation applies to its children, listed or not (see list). It is
	// stored under mu before the walk snapshots the child list, and loaded
	// without a lock by children (IsCancelled, the start and end of their
	// bodies) and under mu by a child being listed.
	down atomic.Uint32

	prev, next *Job         // siblings on parent's child list; under parent.mu
	cerr       *cancelError // the cancellation error (wrapping the cause) once requested; under mu, immutable once terminal

	// Second cache line: the state word, which attach and the children's
	// releases change, and what is kept under mu.
	//
	// state holds the State, the bit* flags and the hold count (state.go).
	// Lock-free readers (IsCancelled, State, the Await fast path) rely on
	// Go atomics being sequentially consistent: a reader that sees a
	// terminal State also sees err and x as they were when the state was
	// published.
	state atomic.Uint64

	mu      sync.Mutex  // protects the fields below and the prev/next links of this job's children
	head    *Job        // first listed child
	waiters *waiter     // blocking waits on this job, newest first
	hooks   *cancelNode // OnCancel callbacks and cancellable waits to fire on cancel
	err     error       // first failure recorded; immutable once terminal
	x       *jobExtra   // allocated on first need, under mu (or before publication)
}

// jobExtra holds what few jobs need. Fields are under Job.mu unless noted.
type jobExtra struct {
	name     string          // immutable after creation
	ctx      context.Context // roots only: the Run context; immutable
	deadline time.Time       // with flagDeadline: immutable
	errs     []error         // failures after the first
	done     chan struct{}   // Done, made on first call
	shield   int32           // Shield nesting depth; bitShield mirrors shield > 0
	timed    timedBody       // WithTimeout with d > 0: the body; only the scope's goroutine touches it
	err      error           // WithTimeout: what Err returned first, once non-nil (see deadlineErr)
	goexit   bool            // failInlineGoexit recorded errInlineGoexit (under mu; see run)
}

// lockSlow locks j.mu and pins j to the locked finish path (see bitSlow),
// returning the state as of the pin.
func (j *Job) lockSlow() uint64 {
	j.mu.Lock()
	s := j.state.Load()
	if s&bitSlow == 0 {
		s = j.state.Or(bitSlow) | bitSlow
	}
	return s
}

// unslowLocked clears bitSlow if nothing is registered on j any more: no
// waiters, hooks, listed children, extra record (a Done channel) or
// failure, and no cancellation. Then j can end with one CAS, as if its
// wait had never registered anything (bodyReturned, finish). Called with
// j.mu held, so no registration is under way (each one sets bitSlow again
// under j.mu, see lockSlow), and bitCancel, set only under j.mu, cannot
// appear between the load and the And.
func (j *Job) unslowLocked() {
	rt := j.rt
	if j.hooks != nil || j.waiters != nil || j.head != nil || j.x != nil || j.err != nil || rt.tracer != nil || rt.faults.on() {
		return
	}
	if s := j.state.Load(); s&bitSlow != 0 && s&bitCancel == 0 {
		j.state.And(^bitSlow)
	}
}

func (j *Job) extra() *jobExtra {
	if j.x == nil {
		j.x = new(jobExtra)
	}
	return j.x
}

// claim reports whether the caller won the right to run j's body.
func (j *Job) claim() bool { return j.state.Or(bitClaimed)&bitClaimed == 0 }

// run runs the claimed body and then the end-of-body transition, on behalf
// of w (nil: release the parent at once; see Worker). A job cancelled
// before its body started skips the body, unless it has flagRunCancelled:
// the bodies of actors and producers must run to close their channel, and
// check for the cancellation themselves.
func (j *Job) run(w *Worker) {
	if s := j.state.Load(); s&(bitCancel|bitShield) == bitCancel || j.parentDown() {
		if j.flags&flagCoreTask != 0 {
			j.runCoreTask()
			return
		}
		if j.flags&flagRunCancelled == 0 || j.rt.faults.has(faultCancelledProducerSkipsBody) {
			j.bodyReturned(nil, w)
			return
		}
	}
	returned := false
	defer func() {
		if returned {
			return
		}
		var err error = ErrGoexit
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		} else if j.goexitRecorded() {
			// The Goexit of a child that a wait in this body ran inline
			// (runInline) has failed j already with errInlineGoexit: the
			// same Goexit is not recorded twice.
			err = nil
		}
		j.bodyReturned(err, w)
	}()
	err := j.body.runBody(j)
	returned = true
	j.bodyReturned(err, w)
}

// runCoreTask runs the body of a core task and marks the task Completed,
// so that Finished reports a queue entry left behind as stale; deferred,
// so that it does so also when the body ends its goroutine with
// runtime.Goexit (an OnCancel callback of a hookTask's).
func (j *Job) runCoreTask() {
	defer j.state.Or(uint64(Completed))
	j.body.runBody(j)
}

// bodyReturned is the end-of-body transition: record the outcome, take
// the parent's cancellation if j missed it, refuse new children, cancel the
// children if the body failed, close nurseries the body left open, mark the
// body done and finish if nothing holds the job.
//
// The common case, a body that returned nil in a job nobody else has
// touched (no children, waiters, hooks, leases, cancellation, Done channel,
// tracer or faults) and whose parent is not cancelled, finishes with one
// CAS and no lock: see bitSlow.
func (j *Job) bodyReturned(err error, w *Worker) {
	rt := j.rt
	// Active, claimed, no holds, nothing else; maybe listed (released
	// then unlinks j from its parent's list).
	const fresh = bitClaimed
	if s := j.state.Load(); err == nil && rt.tracer == nil && !rt.faults.on() && s&^bitListed == fresh && !j.parentDown() {
		if j.state.CompareAndSwap(s, s|bitBodyDone|bitClosed|bitWalked|uint64(Completed)) {
			rt.stats.add(cCompleted)
			j.released(Completed, w, false)
			return
		}
	}
	if _, ok := err.(*cancelError); ok && rt.tracer == nil && !rt.faults.on() && j.endCancelled(w) {
		return
	}
	if j.state.Load()&bitCancel == 0 && j.parentDown() {
		j.takeParentCancel() // the parent's walk did not reach j (unlisted)
	}
	j.mu.Lock()
	walk := false
	if err != nil {
		if _, ok := err.(*cancelError); !ok && !errors.Is(err, ErrCancelled) {
			j.recordFailureLocked(err)
		}
		_, walk = j.requestCancelLocked(err, byPropagation)
	}
	if !walk && j.state.Load()&bitHasOpen == 0 && rt.tracer == nil {
		// Nothing to do unlocked: end the body here with one Or, and
		// finish at once (Active or Cancelling straight to terminal) if
		// nothing holds j; else it is Closing until the last hold goes
		// (which may already have finished it: see setStateLocked).
		s := j.state.Or(bitClosed | bitEnded | bitBodyDone)
		switch {
		case holds(s) == 0 || rt.faults.has(faultNoWaitChildren):
			j.finishLocked(w)
			return
		case stateOf(s) == Active:
			window(winBodyDoneClosing, j)
			j.setStateLocked(Closing)
		}
		j.mu.Unlock()
		return
	}
	s := j.state.Or(bitClosed | bitEnded)
	if stateOf(s) == Active {
		j.setStateLocked(Closing)
	}
	var open []*Job
	if s&bitHasOpen != 0 {
		for c := j.head; c != nil; c = c.next {
			if c.flags&flagOpen != 0 {
				open = append(open, c)
			}
		}
	}
	if !walk && open == nil {
		s = j.state.Or(bitBodyDone)
		if holds(s) == 0 || rt.faults.has(faultNoWaitChildren) {
			j.finishLocked(w)
		} else {
			j.mu.Unlock()
		}
		return
	}
	j.mu.Unlock()
	if walk {
		j.cancelWalk()
	}
	for _, c := range open {
		c.Close()
	}
	// The body is not done until here, so nothing above can finish j.
	s = j.state.Or(bitBodyDone)
	if holds(s) == 0 || rt.faults.has(faultNoWaitChildren) {
		j.finish(w)
	}
}

// endCancelled is bodyReturned for a body that returned a cancellation
// error in a job that nothing holds, whose cancel walk is done, and on
// which nothing has been registered since (bitSlow clear: see
// cancelLeafLocked), typically a leaf the walk woke from a Sleep or a
// channel operation: one CAS ends the body and moves j from Cancelling to
// Cancelled, with no lock, as the fast path of finish does for Completed.
// The walk has closed Done and taken the hooks, no waiter is registered
// and no failure recorded, so finishLocked would have nothing else to do.
// A registration that takes j.mu sets bitSlow first, and so either makes
// the CAS fail or finds j terminal. It reports false, changing nothing,
// when j is not such a job.
func (j *Job) endCancelled(w *Worker) bool {
	const (
		need   = bitClaimed | bitCancel | bitWalked
		refuse = bitSlow | bitShield | bitBodyDone | bitClosed | bitEnded | bitHasOpen | bitWaitAll
	)
	for s := j.state.Load(); s&(need|refuse) == need && holds(s) == 0 && stateOf(s) == Cancelling; s = j.state.Load() {
		if j.state.CompareAndSwap(s, s&^stateMask|bitClosed|bitEnded|bitBodyDone|uint64(Cancelled)) {
			j.rt.stats.add(cCancelled)
			j.released(Cancelled, w, false)
			return true
		}
	}
	return false
}

// recordFailureLocked records a failure: the first one is the job's Result
// (first error wins), the rest are kept for Errors.
func (j *Job) recordFailureLocked(err error) {
	j.state.Or(bitSlow) // a failed job does not finish on the fast path
	switch {
	case j.err == nil:
		j.err = err
	case j.rt.faults.has(faultLastErrorWins):
		x := j.extra()
		x.errs = append(x.errs, j.err)
		j.err = err
	default:
		x := j.extra()
		x.errs = append(x.errs, err)
	}
}

// setStateLocked moves j to st, unless j is already terminal: no
// transition leaves a terminal state, and a job whose body just ended may
// be finished by its last child's release (lock-free) before the body's
// goroutine writes Closing (bodyReturned).
func (j *Job) setStateLocked(st State) {
	for {
		old := j.state.Load()
		if stateOf(old).Terminal() {
			return
		}
		if j.state.CompareAndSwap(old, old&^stateMask|uint64(st)) {
			break
		}
	}
	if j.rt.tracer != nil {
		j.rt.trace(Event{Kind: EvJobState, Job: j, State: st})
	}
}
