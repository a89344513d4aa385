package kc

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/internal/faults"
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
	flagDetached   jobFlags = 1 << iota // not in the parent's child list
	flagSupervisor                      // ignores child failures
	flagScope                           // Scope/SupervisorScope/WithTimeout: the caller gets the failure; the parent does not
	flagOpen                            // made by Open: no body, Close ends it
	flagDeadline                        // x.deadline is set (immutable)
)

// Job is a node of the job tree (see the package doc for its state machine).
// A *Job is also a context.Context. Its methods are safe for concurrent use,
// except Shield, which belongs to the job's own body.
//
// Size: 128 bytes on 64-bit platforms (spec 01 4.20 asks <= 128); everything
// rarely needed lives in the lazily allocated jobExtra.
type Job struct {
	// First cache line: what running and finishing a child touches (the
	// fast path), so that a worker finishing a job created on another core
	// misses on one line of it, and on one line of the sibling it unlinks.
	rt     *Runtime   // immutable
	parent *Job       // immutable; nil for a root
	body   bodyRunner // immutable; nil for a nursery made by Open

	// state holds the State in its low bits and the bit* flags above them
	// (state.go). It is written only with atomic RMW operations, under mu
	// except for the bitClaimed CAS; lock-free readers (IsCancelled, State,
	// the Await fast path) rely on Go atomics being sequentially consistent:
	// a reader that sees a terminal State also sees err and x as they were
	// when the state was published.
	state atomic.Uint32
	flags jobFlags // immutable

	prev, next *Job // siblings; under parent.mu

	// Second cache line: what the job touches as a parent.
	mu sync.Mutex // protects the fields below, and the prev/next links of this job's children

	// children counts what keeps the job from becoming terminal besides its
	// body: each attached non-detached child, each Lease, and each cancel
	// walk in progress (which holds the job while its OnCancel hooks run).
	children int32
	shield   int32 // Shield nesting depth; bitShield mirrors shield > 0

	head *Job // first child; under mu

	waiters *waiter      // blocking waits on this job, newest first
	hooks   *cancelNode  // OnCancel callbacks and cancellable waits to fire on cancel
	err     error        // first failure recorded; immutable once terminal
	cerr    *cancelError // the cancellation error (wrapping the cause) once requested; immutable once terminal
	x       *jobExtra    // allocated on first need, under mu (or before publication)
}

// jobExtra holds what few jobs need. Fields are under Job.mu unless noted.
type jobExtra struct {
	name     string          // immutable after creation
	ctx      context.Context // roots only: the Run context; immutable
	deadline time.Time       // with flagDeadline: immutable
	errs     []error         // failures after the first
	done     chan struct{}   // Done, made on first call
}

// lockSlow locks j.mu and pins j to the locked finish path (see bitSlow),
// returning the state as of the pin.
func (j *Job) lockSlow() uint32 {
	j.mu.Lock()
	s := j.state.Load()
	if s&bitSlow == 0 {
		s = j.state.Or(bitSlow) | bitSlow
	}
	return s
}

func (j *Job) extra() *jobExtra {
	if j.x == nil {
		j.x = new(jobExtra)
	}
	return j.x
}

// attach initializes c as a child of j and links it, or reports why j
// refuses children: ErrCancelled if j is cancelled (outside a Shield) or
// terminal, ErrClosed if it is Closing.
func (j *Job) attach(c *Job, body bodyRunner, flags jobFlags) error {
	rt := j.rt
	c.rt, c.parent, c.body, c.flags = rt, j, body, flags
	if body == nil {
		c.state.Store(bitClaimed) // a nursery has no body to run
	}
	detached := flags&flagDetached != 0 && rt.faults&faults.DetachedAttached == 0

	s := j.lockSlow()
	switch {
	case State(s & stateMask).Terminal(), s&(bitCancel|bitShield) == bitCancel:
		j.mu.Unlock()
		return ErrCancelled
	case s&bitClosed != 0:
		j.mu.Unlock()
		return ErrClosed
	}
	if detached {
		if err := rt.addTop(c); err != nil {
			j.mu.Unlock()
			return err
		}
	} else {
		c.next = j.head
		if j.head != nil {
			j.head.prev = c
		}
		j.head = c
		j.children++
		if flags&flagOpen != 0 {
			j.state.Or(bitHasOpen)
		}
	}
	rt.stats.add(cCreated)
	if rt.tracer != nil {
		rt.trace(Event{Kind: EvJobCreate, Job: c, Parent: j})
		if !detached {
			rt.trace(Event{Kind: EvJobChildAttach, Job: c, Parent: j})
		}
	}
	j.mu.Unlock()
	return nil
}

func (j *Job) unlinkChildLocked(c *Job) {
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		j.head = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	}
	c.prev, c.next = nil, nil
}

// claim reports whether the caller won the right to run j's body.
func (j *Job) claim() bool { return j.state.Or(bitClaimed)&bitClaimed == 0 }

// run runs the claimed body and then the end-of-body transition. A job
// cancelled before its body started skips the body.
func (j *Job) run() {
	if s := j.state.Load(); s&(bitCancel|bitShield) == bitCancel {
		j.bodyReturned(nil)
		return
	}
	returned := false
	defer func() {
		if returned {
			return
		}
		var err error = ErrGoexit
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
		j.bodyReturned(err)
	}()
	err := j.body.runBody(j)
	returned = true
	j.bodyReturned(err)
}

// bodyReturned is the end-of-body transition: record the outcome, refuse
// new children, cancel the children if the body failed, close nurseries
// the body left open, and finish if nothing else holds the job.
//
// The common case, a body that returned nil in a job nobody else has
// touched (no children, waiters, hooks, leases, cancellation, Done channel,
// tracer or faults), finishes with one CAS and no lock: see bitSlow.
func (j *Job) bodyReturned(err error) {
	if err == nil && j.rt.tracer == nil && j.rt.faults == 0 {
		const fresh = bitClaimed // Active, claimed, nothing else
		if j.state.CompareAndSwap(fresh, fresh|bitBodyDone|bitClosed|bitWalked|uint32(Completed)) {
			j.rt.stats.add(cCompleted)
			j.released(Completed)
			return
		}
	}
	j.mu.Lock()
	walk := false
	if err != nil {
		if !errors.Is(err, ErrCancelled) {
			j.recordFailureLocked(err)
		}
		_, walk = j.requestCancelLocked(err, byPropagation)
	}
	s := j.state.Or(bitBodyDone | bitClosed)
	if State(s&stateMask) == Active {
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
		j.maybeFinishLocked()
		return
	}
	j.children++ // hold the job while we walk and close
	j.mu.Unlock()
	if walk {
		j.cancelWalk()
	}
	for _, c := range open {
		c.Close()
	}
	j.mu.Lock()
	j.releaseLocked()
}

// recordFailureLocked records a failure: the first one is the job's Result
// (first error wins), the rest are kept for Errors.
func (j *Job) recordFailureLocked(err error) {
	switch {
	case j.err == nil:
		j.err = err
	case j.rt.faults&faults.LastErrorWins != 0:
		x := j.extra()
		x.errs = append(x.errs, j.err)
		j.err = err
	default:
		x := j.extra()
		x.errs = append(x.errs, err)
	}
}

func (j *Job) setStateLocked(st State) {
	for {
		old := j.state.Load()
		if j.state.CompareAndSwap(old, old&^stateMask|uint32(st)) {
			break
		}
	}
	if j.rt.tracer != nil {
		j.rt.trace(Event{Kind: EvJobState, Job: j, State: st})
	}
}

// releaseLocked drops one hold on j (a child, a lease, a walk) and finishes
// j if that was the last one and its body is done. Called with j.mu held;
// returns with it released.
func (j *Job) releaseLocked() {
	j.children--
	j.maybeFinishLocked()
}

// maybeFinishLocked wakes WaitAll waiters when no children are left and
// finishes the job if its body is done too. Called with j.mu held; returns
// with it released.
func (j *Job) maybeFinishLocked() {
	s := j.state.Load()
	if State(s & stateMask).Terminal() {
		j.mu.Unlock() // only reachable with faults.NoWaitChildren
		return
	}
	if j.children == 0 {
		j.wakeWaitersLocked(waitChildren)
	}
	if s&bitBodyDone != 0 && (j.children == 0 || j.rt.faults&faults.NoWaitChildren != 0) {
		j.finishLocked()
		return
	}
	j.mu.Unlock()
}

// finishLocked moves j to its terminal state, wakes its waiters, drops its
// hooks (no callback outlives its job) and releases its parent. It runs no
// user code. Called with j.mu held; returns with it released.
func (j *Job) finishLocked() {
	rt := j.rt
	s := j.state.Load()
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
		if rt.faults&faults.DoubleCount != 0 {
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
	j.wakeWaitersLocked(waitTerminal)
	if rt.tracer != nil {
		rt.trace(Event{Kind: EvJobFinalize, Job: j, State: st})
	}
	j.mu.Unlock()
	j.released(st)
}

// released tells whoever holds a terminal job that it ended in state st:
// its parent, or the runtime for a root or detached job.
func (j *Job) released(st State) {
	rt := j.rt
	switch p := j.parent; {
	case p == nil || j.flags&flagDetached != 0 && rt.faults&faults.DetachedAttached == 0:
		rt.topDone(j)
	default:
		p.childDone(j, st)
	}
}

// childDone unlinks a terminal child and applies its failure: unless j is a
// supervisor or c a scope (whose caller gets the error), j records the
// failure and is cancelled, which cancels c's siblings.
func (j *Job) childDone(c *Job, st State) {
	f := j.rt.faults
	j.mu.Lock()
	j.unlinkChildLocked(c)
	if j.State().Terminal() { // only with faults.NoWaitChildren
		j.releaseLocked()
		return
	}
	if st == Failed && c.flags&flagScope == 0 &&
		(j.flags&flagSupervisor == 0 || f&faults.SupervisorPropagates != 0) {
		j.recordFailureLocked(c.err)
		if f&faults.NoCancelSiblings == 0 {
			if _, walk := j.requestCancelLocked(c.err, byPropagation); walk {
				j.mu.Unlock() // c's hold on j keeps it alive during the walk
				j.cancelWalk()
				j.mu.Lock()
			}
		}
	}
	j.releaseLocked()
}
