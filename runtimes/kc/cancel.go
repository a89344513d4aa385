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

// How a cancellation was requested: only an explicit Cancel may replace a
// timeout's cause; failures and propagation never do.
type cancelKind uint8

const (
	byPropagation cancelKind = iota // a parent's walk, a lazily seen parent cancellation, a failure, a body returning a cancellation error
	byCancel                        // Job.Cancel, Runtime.Close, the Run context
	byTimeout                       // the job's own WithTimeout timer
)

// requestCancelLocked records a cancellation request on j. moved reports
// whether j was moved to Cancelling by this call; walk reports whether the
// caller must now run cancelWalk (false inside a Shield: the walk is then
// deferred to the outermost shield's exit). Cause rules: the first request
// wins, except that an explicit non-nil cause replaces a timeout.
func (j *Job) requestCancelLocked(cause error, how cancelKind) (moved, walk bool) {
	rt := j.rt
	s := j.state.Load()
	if stateOf(s).Terminal() {
		return false, false
	}
	if s&bitCancel != 0 {
		if s&bitTimedOut != 0 && how == byCancel && cause != nil {
			j.setCauseLocked(cause)
			j.state.And(^bitTimedOut)
		} else if how == byTimeout && rt.faults.has(faultTimeoutOverridesFailure) {
			j.state.Or(bitTimedOut)
		}
		return false, false
	}
	j.setCauseLocked(cause)
	bits := bitCancel
	if how == byTimeout {
		bits |= bitTimedOut
	}
	j.state.Or(bits)
	rt.stats.add(cCancelReq)
	if rt.tracer != nil {
		rt.trace(Event{Kind: EvJobCancelReq, Job: j})
	}
	j.setStateLocked(Cancelling)
	return true, s&bitShield == 0 || rt.faults.has(faultShieldNoDefer)
}

func (j *Job) setCauseLocked(cause error) {
	if ce, ok := cause.(*cancelError); ok {
		j.cerr = ce // propagated from a parent, or a body returning a Check error: share it
	} else {
		j.cerr = &cancelError{cause: cause}
	}
}

// cancel requests cancellation and runs the walk if due.
//
// An explicit request (Cancel, a timeout) first records the cancellation
// of j's parent if it reached j only lazily (parentDown: j was not on the
// parent's child list when the parent's walk ran): that cancellation came
// first, so its cause wins and this request does not move j. A
// propagated request needs no such look: it carries that same cause.
func (j *Job) cancel(cause error, how cancelKind) bool {
	if how != byPropagation && j.state.Load()&bitCancel == 0 && j.parentDown() && !j.rt.faults.has(faultLazyCancelIgnored) {
		j.takeParentCancel()
	}
	return j.cancelLocking(cause, how, 0)
}

// cancelLocking is cancel after the look at the parent: it takes j.mu and
// records the request, and runs the walk if due. unlist is bitListed when
// the caller is the walk of j's parent, which has taken j off its child
// list (cancelWalkLocked), else 0: a leaf cancelled by that walk then
// drops bitListed in the CAS that cancels it, and so ends without taking
// the parent's lock (released).
func (j *Job) cancelLocking(cause error, how cancelKind, unlist uint64) bool {
	j.lockSlow()
	if j.cancelLeafLocked(cause, how, unlist) {
		return true
	}
	moved, walk := j.requestCancelLocked(cause, how)
	if walk {
		j.cancelWalkLocked()
	} else {
		j.mu.Unlock()
	}
	return moved
}

// cancelLeafLocked is requestCancelLocked and cancelWalkLocked in one, for
// the job that most cancellations reach: a leaf (no holds, so no children
// and no leases) outside a Shield, whose body has not ended, with no
// OnCancel callbacks (its hooks, if any, are cancellable waits, such as
// the Sleep or channel operation its body is parked in). One CAS of the
// state word records the request, moves j to Cancelling and marks the
// walk begun, and the walk takes no hold: its only work after unlocking
// is waking the waits, which runs no user code, so nothing needs j kept
// from finishing meanwhile (a wait whose owner returned first loses the
// wake's CAS; see chanWaiter.wait for why such a node is not reused). No
// child can attach once bitCancel is set (refusal), so the leaf needs no
// down flag. It reports false, changing nothing, when j is not such a leaf
// (or a tracer or fault wants the general path); j.mu is then still held.
// On true, j.mu has been released. unlist is as for cancelLocking.
func (j *Job) cancelLeafLocked(cause error, how cancelKind, unlist uint64) bool {
	rt := j.rt
	if j.body == nil || rt.tracer != nil || rt.faults.on() {
		return false
	}
	for n := j.hooks; n != nil; n = n.next {
		if n.w == nil {
			return false // an OnCancel callback: it runs under the walk's hold
		}
	}
	bits := bitCancel | bitWalked | uint64(Cancelling)
	if how == byTimeout {
		bits |= bitTimedOut
	}
	// bitCancel, bitShield, bitWalked and the State change only under
	// j.mu, which we hold; attach and Lease (adding holds, by CAS without
	// j.mu), releases (Add) and the claim and bitBodyDone (Or) may change
	// the word meanwhile, and the loop retries after them. The cause is
	// stored before the CAS that publishes bitCancel, so a lock-free reader
	// that sees bitCancel sees it (cancelErr); should the loop give up,
	// bitCancel is still clear and requestCancelLocked stores the same
	// cause again.
	leaf := func(s uint64) bool {
		return s&(bitCancel|bitShield|bitBodyDone|bitWalked) == 0 && holds(s) == 0 && stateOf(s) <= Closing
	}
	s := j.state.Load()
	if !leaf(s) {
		return false
	}
	// Once the walk has taken the hooks, nothing is registered on j if it
	// has no waiters, no extra record (a Done channel) and no failure: the
	// CAS then also clears bitSlow, which the waits' registrations set, so
	// that the body's end can finish j Cancelled with one CAS
	// (endCancelled). Whoever registers something later sets it again
	// (lockSlow), under j.mu, which we hold now.
	clear := unlist
	if j.waiters == nil && j.x == nil && j.err == nil {
		clear |= bitSlow
	}
	j.setCauseLocked(cause)
	for !j.state.CompareAndSwap(s, s&^(stateMask|clear)|bits) {
		if s = j.state.Load(); !leaf(s) {
			return false
		}
	}
	rt.stats.add(cCancelReq)
	hooks := j.takeHooksLocked()
	j.mu.Unlock()
	if fireHooks(hooks) != nil {
		panic("kc: a leaf walk claimed an OnCancel callback") // none was linked: checked above, under j.mu
	}
	return true
}

// cancelWalk propagates a recorded cancellation (spec 02 topology walk):
// it closes Done, cancels every listed child (the others see j.down),
// wakes every cancellable wait and claims every OnCancel callback, which a
// hookTask then runs. It runs at most once per job, without j.mu held
// while children are cancelled; a hold on j, passed to the hookTask, keeps
// j from becoming terminal until the callbacks have run. A job that is
// finishing (its body done, no holds) but not terminal can take no hold:
// walkFinishingLocked walks it instead.
func (j *Job) cancelWalk() {
	j.mu.Lock()
	j.cancelWalkLocked()
}

// cancelWalkLocked is cancelWalk for a caller that holds j.mu; it returns
// with j.mu released.
func (j *Job) cancelWalkLocked() {
	s := j.state.Load()
	// A nursery from Open has no body to end it: its cancellation ends it
	// instead (spec 04 §2.3, Cancelling -> Cancelled once its children are
	// done, with no Close). The walk marks its "body" done in the CAS that
	// takes the walk's hold, so that the walk's own release, or the last
	// child's or lease's after it, finishes the nursery; the hold keeps
	// that from happening before the hooks have fired.
	var ended uint64
	if j.body == nil && !j.rt.faults.has(faultCancelledNurseryWaitsForClose) {
		ended = bitBodyDone | bitClosed
	}
	for {
		if s&bitWalked != 0 || stateOf(s).Terminal() {
			j.mu.Unlock()
			return
		}
		if finishing(s) {
			j.walkFinishingLocked()
			return
		}
		if j.state.CompareAndSwap(s, (s+oneHold)|bitWalked|ended) {
			break
		}
		s = j.state.Load()
	}
	var buf [8]*Job
	kids := buf[:0]
	// The walk takes its children off the child list as it snapshots it
	// (unless a tracer or a fault wants the list kept whole): the list's
	// only use, reaching them with the cancellation, is over for them, and
	// a detached child need not take j.mu to unlink itself when it ends
	// (unlinkChildLocked skips it; a leaf also drops bitListed as the walk
	// cancels it, see cancelLocking, and then skips childDone). A child
	// listed later is linked anew, and cancels itself (list).
	var unlist uint64
	if j.rt.tracer == nil && !j.rt.faults.on() {
		unlist = bitListed
	}
	// With no holds before ours, j has no children, and outside a Shield
	// none can attach from now on (refusal), so no child will ever read
	// down: a leaf's walk skips the store.
	if (holds(s) != 0 || s&bitShield != 0) && !j.rt.faults.has(faultNoCancelDown) {
		// Stored before the snapshot, under mu: a child listed after the
		// snapshot sees it (list), an unlisted one sees it when it checks.
		j.down.Store(1)
		// Every listed child holds j, so the holds before ours bound the
		// snapshot (children attached in a Shield since the CAS aside):
		// one allocation instead of a doubling append's log2(n).
		if h := holds(s); h > uint64(len(buf)) && j.head != nil {
			kids = make([]*Job, 0, h)
		}
		for c := j.head; c != nil; {
			next := c.next
			kids = append(kids, c)
			if unlist != 0 {
				c.prev, c.next = nil, nil
			}
			c = next
		}
		if unlist != 0 {
			j.head = nil
		}
	}
	hooks := j.takeHooksLocked()
	cause := error(j.cerr)
	j.mu.Unlock()

	for _, c := range kids {
		c.cancelLocking(cause, byPropagation, unlist)
	}
	if calls := fireHooks(hooks); calls != nil {
		// The walk's hold passes to the task, which drops it once the
		// callbacks have run.
		j.rt.runHooks(&hookTask{j: j, calls: calls})
		return
	}
	j.release(1, nil)
}

// walkFinishingLocked is the cancel walk of a job that is finishing (body
// done, no holds) but not yet terminal, for a cancellation recorded just
// before or after the read-modify-write that made it finishing (a Cancel
// racing the last Lease release or child end, a parent's walk reaching a
// listed child as it finishes, the finisher's own take of a parent's
// cancellation). The job ends Cancelled, so its OnCancel callbacks must
// run, before it is terminal (no callback outlives its job); but no hold
// may be added. So the walk marks itself running (bitWalking) under j.mu,
// and the finisher, which takes j.mu before it publishes anything, leaves
// the finish to the walk's end when it finds the mark (finishLocked,
// endWalkFinishing). No child is left to cancel (no holds), so the walk
// closes Done and claims the callbacks, which run on a hookTask, like
// every walk's. With no hooks the walk only closes Done and marks itself
// done (bitWalked), so that an OnCancel that comes after it fires at once
// rather than being dropped by the finish. Called with j.mu held,
// bitCancel set and bitWalked clear; returns with j.mu released. It runs
// no user code, so a finisher on a Lease release may call it.
func (j *Job) walkFinishingLocked() {
	if j.rt.faults.has(faultFinishingWalkSkipped) {
		j.mu.Unlock()
		return
	}
	// With no hooks there is nothing to wait for: the walk is done once
	// Done is closed, and an OnCancel registered from now on fires at once
	// (addHookLocked) instead of being dropped by the finish.
	bits := bitWalked
	if j.hooks != nil {
		bits |= bitWalking
	}
	j.state.Or(bits)
	hooks := j.takeHooksLocked()
	j.mu.Unlock()
	if hooks == nil {
		return
	}
	if calls := fireHooks(hooks); calls != nil {
		j.rt.runHooks(&hookTask{j: j, calls: calls, finishing: true})
		return
	}
	j.endWalkFinishing() // every callback was stopped first
}

// endWalkFinishing ends walkFinishingLocked's walk: it clears the mark and,
// if the finisher came meanwhile and left the finish to it, finishes j.
func (j *Job) endWalkFinishing() {
	j.mu.Lock()
	if s := j.state.And(^bitWalking); s&bitFinishDeferred != 0 {
		j.finishLocked(nil, false)
		return
	}
	j.mu.Unlock()
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

// fail records a failure on a job that is being held non-terminal.
func (j *Job) fail(err error) {
	j.mu.Lock()
	j.recordFailureLocked(err)
	if _, walk := j.requestCancelLocked(err, byPropagation); walk {
		j.cancelWalkLocked()
	} else {
		j.mu.Unlock()
	}
}

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

// Cancel requests cancellation of j with the given cause (nil is allowed)
// and of all its non-detached descendants. It returns true if this call
// moved j to Cancelling; false if j was already cancelling (also when an
// ancestor's cancellation already reached it) or terminal. The
// first cause wins, except that an explicit cause replaces a timeout. Cost:
// O(1) for j plus O(descendants) for the walk, which runs on the caller;
// the OnCancel callbacks it reaches run on the executor (see OnCancel).
func (j *Job) Cancel(cause error) bool { return j.cancel(cause, byCancel) }

// IsCancelled reports whether cancellation of j was requested, by a Cancel
// of j or of an ancestor (outside Shield). It is false inside Shield, and
// for a terminal job that ended without cancellation. O(1) and lock-free:
// a load of j's state word and, unless j is terminal, of its parent's down
// flag; the first call that finds j cancelled only through down records
// the cancellation on j (takeParentCancel, under the locks), so that j
// cannot then end Completed.
func (j *Job) IsCancelled() bool {
	s := j.state.Load()
	switch {
	case s&bitShield != 0:
		return false
	case s&bitCancel != 0:
		return true
	case stateOf(s).Terminal() || !j.parentDown():
		return false
	}
	j.takeParentCancel()
	s = j.state.Load()
	return s&(bitCancel|bitShield) == bitCancel
}

// cancelSeen reports what IsCancelled would, but records nothing and takes
// no lock, so that a channel operation may call it with the channel's mutex
// held, at the moment it would commit: on its own job, and on the job of a
// blocked counterpart before it claims that counterpart's wait node. Two
// atomic loads (j's state word, the parent's down flag). Because Go atomics
// are sequentially consistent and the commit is under the channel's mutex,
// an operation that commits after a Cancel covering j has returned (as a
// Recv that the canceller makes next observes) sees that cancellation; an
// operation that does not see it is ordered before the Cancel.
func (j *Job) cancelSeen() bool {
	s := j.state.Load()
	switch {
	case s&bitShield != 0:
		return false
	case s&bitCancel != 0:
		return true
	}
	return !stateOf(s).Terminal() && j.parentDown()
}

// cancelledErr is Check for a caller that saw j cancelled (cancelSeen, or
// a wake by j's cancellation): it records a lazily reached cancellation on
// j and returns j's cancellation error.
func (j *Job) cancelledErr() error {
	if err := j.Check(); err != nil {
		return err
	}
	return j.cancelErr()
}

// Check is a cancellation checkpoint: nil, or, if j is cancelled (outside
// Shield), the cancellation error, which matches ErrCancelled and wraps the
// cause. A body that returns it ends Cancelled.
func (j *Job) Check() error {
	if !j.IsCancelled() {
		return nil
	}
	return j.cancelErr()
}

// cancelErr returns j's cancellation error: its own, or, if j only learnt
// of its parent's cancellation lazily (parentDown), the parent's.
//
// Once bitCancel is set and bitTimedOut is clear, j.cerr is final: it was
// stored before the read-modify-write that published bitCancel (or, for a
// cause that replaced a timeout's, the And that cleared bitTimedOut), and
// only a request that finds bitTimedOut set replaces it, which no build
// without faults sets after bitCancel. A load that sees that state is
// ordered after the store (Go's atomics are sequentially consistent), so
// the cancelled wait that returns it (a Sleep woken by the walk) reads it
// without j.mu.
func (j *Job) cancelErr() error {
	if s := j.state.Load(); s&(bitCancel|bitTimedOut) == bitCancel && !j.rt.faults.on() {
		if ce := j.cerr; ce != nil {
			return ce
		}
	}
	j.mu.Lock()
	ce := j.cerr
	j.mu.Unlock()
	switch {
	case ce != nil:
		return ce
	case j.parentDown():
		return j.parent.cancelErr()
	}
	return ErrCancelled
}

// Shield runs body with cancellation of j ignored (spec 02
// ignore_cancellation): inside, IsCancelled and Check report nothing, waits
// are not interrupted, and a cancel that arrives records its cause but defers
// the walk of j's children and hooks to the exit of the outermost Shield.
// If j is already cancelled, Shield returns the cancellation error without
// running body. Shields nest. Only j's own body may call Shield. A nil
// body is refused with ErrNilBody.
func (j *Job) Shield(body func() error) error {
	if body == nil {
		return ErrNilBody
	}
	if j.IsCancelled() { // records a parent's cancellation that reached j lazily
		return j.cancelErr()
	}
	j.mu.Lock()
	// Look again under j.mu, where bitCancel and bitShield change: a
	// Cancel since IsCancelled has run its walk (or a leaf's), and a
	// shield raised now would let children attach that no walk reaches.
	if s := j.state.Load(); s&(bitCancel|bitShield) == bitCancel {
		j.mu.Unlock()
		return j.cancelErr()
	}
	j.extra().shield++
	j.state.Or(bitShield)
	j.mu.Unlock()
	defer j.unshield()
	return body()
}

func (j *Job) unshield() {
	j.mu.Lock()
	j.x.shield--
	walk := false
	if j.x.shield == 0 {
		s := j.state.And(^bitShield)
		walk = s&bitCancel != 0 && s&bitWalked == 0
	}
	j.mu.Unlock()
	if walk {
		j.cancelWalk()
	}
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
