package kc

import (
	"runtime/debug"
	"sync/atomic"
)

// cancelNode is an entry in a job's hook list (spec 02 HeapCancelNode): an
// OnCancel callback, or a cancellable wait to wake. The cancel walk detaches
// the whole list and fires every node; a terminal job drops its list unfired.
type cancelNode struct {
	prev, next *cancelNode // in owner.hooks; under owner.mu
	linked     bool        // on owner.hooks; under owner.mu
	fn         func()      // the OnCancel callback, or nil
	w          *waiter     // the wait to wake with wakeCancel, or nil

	// state arbitrates between firing and stopping an OnCancel callback
	// (the disarm pattern): exactly one CAS from nodeArmed wins.
	state atomic.Uint32
}

// The states of cancelNode.state. Only an OnCancel callback's node uses
// them; a wait's node stays nodeArmed.
const (
	// nodeArmed: registered, neither claimed by a walk nor stopped. Moves
	// to nodeFired (a cancel walk claims it, or OnCancel finds j already
	// walked) or to nodeStopped (stop); one CAS decides.
	nodeArmed uint32 = iota
	// nodeFired: claimed to run. The callback runs once, on a hookTask (or
	// at once on OnCancel's caller); stop reports false from here on.
	// Final.
	nodeFired
	// nodeStopped: stop prevented the call. Final.
	nodeStopped
)

// Results of addHookLocked.
const (
	hookLinked  = iota // on the list: the cancel walk will fire it
	hookFireNow        // j's cancel walk already ran: the caller fires it
	hookNever          // j ended without cancellation: it will never fire
)

// addHookLocked links n into j's hooks unless j's cancel walk already ran
// or j is terminal.
func (j *Job) addHookLocked(n *cancelNode) int {
	switch s := j.state.Load(); {
	case s&bitCancel != 0 && s&bitWalked != 0:
		return hookFireNow
	case stateOf(s).Terminal():
		return hookNever
	}
	n.prev, n.next = nil, j.hooks
	if j.hooks != nil {
		j.hooks.prev = n
	}
	j.hooks = n
	n.linked = true
	return hookLinked
}

// addHook lists j (so that its parent's walk reaches the hook) and adds n
// to its hooks; see addHookLocked for the result.
func (j *Job) addHook(n *cancelNode) int {
	j.list()
	j.lockSlow()
	how := j.addHookLocked(n)
	j.mu.Unlock()
	return how
}

// removeHookLocked unlinks n if it is still on j's hooks and reports
// whether it did. False means that j's cancel walk (which may still be
// about to fire n) or its finish detached n first.
func (j *Job) removeHookLocked(n *cancelNode) bool {
	if !n.linked {
		return false
	}
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		j.hooks = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	}
	n.prev, n.next, n.linked = nil, nil, false
	return true
}

// hookTask is the body of a core task (flagCoreTask) that runs the OnCancel
// callbacks a cancel walk of j claimed, and then ends that walk: it drops
// the walk's hold (cancelWalkLocked), or ends the walk of a finishing job
// (walkFinishingLocked), either of which may finish j. While it is pending
// j is not terminal, so its ancestors, and Runtime.Close, wait. Only the
// goroutine running the task touches calls.
type hookTask struct {
	j         *Job
	calls     *cancelNode // the claimed callbacks not yet run, linked through next
	finishing bool        // the walk is walkFinishingLocked's
}

// runHooks hands t to the executor as a core task.
func (rt *Runtime) runHooks(t *hookTask) {
	if rt.faults.has(faultHooksOnCanceller) {
		t.runBody(nil)
		return
	}
	rt.ex.Spawn(newCoreTask(rt, t))
}

// newCoreTask makes a core task (see flagCoreTask) that runs body.
func newCoreTask(rt *Runtime, body bodyRunner) *Task {
	t := &Job{rt: rt, body: body, flags: flagCoreTask}
	t.state.Store(bitCancel) // before publication: see flagCoreTask
	return (*Task)(t)
}

func (t *hookTask) runBody(*Job) error {
	for t.calls != nil {
		n := t.calls
		t.calls = n.next
		t.call(n.fn)
	}
	if t.finishing {
		t.j.endWalkFinishing()
	} else {
		t.j.release(1, nil)
	}
	return nil
}

// call runs one callback. A panic fails j with a *PanicError. A
// runtime.Goexit fails j with errHookGoexit and ends the task's goroutine,
// as it ends any goroutine (the executor copes, as with a body's Goexit);
// before it does, call hands the rest of the task (the callbacks left and
// the walk's end) to a new core task, so that j still finishes.
func (t *hookTask) call(f func()) {
	returned := false
	defer func() {
		if returned {
			return
		}
		if r := recover(); r != nil {
			t.j.fail(&PanicError{Value: r, Stack: debug.Stack()})
			return
		}
		t.j.fail(errHookGoexit)
		if t.j.rt.faults.has(faultOnCancelGoexitAbandons) {
			return
		}
		// This goroutine touches t no more: the new task owns it.
		t.j.rt.ex.Spawn(newCoreTask(t.j.rt, t))
	}()
	f()
	returned = true
}

// takeHooksLocked is the part of a cancel walk done under j.mu: it closes
// Done (if made) and detaches the hook list, which the caller fires after
// unlocking; a detached node is no longer linked, so its owner's remove
// does not touch the list.
func (j *Job) takeHooksLocked() *cancelNode {
	if j.x != nil && j.x.done != nil {
		close(j.x.done)
	}
	hooks := j.hooks
	j.hooks = nil
	for n := hooks; n != nil; n = n.next {
		n.linked = false
	}
	return hooks
}

// fireHooks fires the hooks that takeHooksLocked detached, without j.mu:
// it wakes each cancellable wait, and claims (nodeArmed to nodeFired) each
// OnCancel callback that stop has not disarmed. It returns the claimed
// callbacks, in list order, linked through next, for a hookTask to run: a
// walk runs no user code on its caller. A detached node is the walk's
// until fired (no remove touches it), so relinking it is safe.
func fireHooks(hooks *cancelNode) (calls *cancelNode) {
	tail := &calls
	for n := hooks; n != nil; {
		next := n.next // read first: once woken, a waiter returns and the node is no longer ours
		if n.w != nil {
			n.w.p.wake(wakeCancel)
		} else if n.state.CompareAndSwap(nodeArmed, nodeFired) {
			n.next = nil
			*tail, tail = n, &n.next
		}
		n = next
	}
	return calls
}

// OnCancel arranges for f to run once when j is cancelled, like
// context.AfterFunc: the cancel walk that reaches j claims f, and f runs
// on a task of the executor, not on the cancelling goroutine, so a Cancel
// runs no user code and a callback may take locks that Cancel's caller
// holds. Cancel may return before f has run, but j does not become
// terminal until f has returned: no callback outlives its job. If j is
// already cancelled, f runs at once on the caller. If j ends without
// being cancelled, f never runs. stop reports whether it prevented the
// call; once the walk has claimed f it reports false, whether or not f
// has run yet (as context.AfterFunc's stop does). f should be quick: it
// holds a worker of the executor, and j's end, while it runs. A panic in
// f fails j with a *PanicError, and a runtime.Goexit with an error that
// matches ErrGoexit (the walk's other callbacks still run); run at once,
// either reaches the caller instead (in a body, a panic then fails the
// body's job with a *PanicError).
func (j *Job) OnCancel(f func()) (stop func() bool) {
	if f == nil {
		return func() bool { return false }
	}
	n := &cancelNode{fn: f}
	if how := j.addHook(n); how == hookFireNow {
		n.state.Store(nodeFired)
		if j.rt.faults.has(faultOnCancelPanicSwallowed) {
			defer func() { recover() }()
		}
		f()
		return func() bool { return false }
	}
	return func() bool {
		if !n.state.CompareAndSwap(nodeArmed, nodeStopped) {
			return false
		}
		j.mu.Lock()
		j.removeHookLocked(n)
		j.mu.Unlock()
		return true
	}
}
