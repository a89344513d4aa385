package kc

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
		j.finishLocked(nil)
		return
	}
	j.mu.Unlock()
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

// Cancel requests cancellation of j with the given cause (nil is allowed)
// and of all its non-detached descendants. It returns true if this call
// moved j to Cancelling; false if j was already cancelling (also when an
// ancestor's cancellation already reached it) or terminal. The
// first cause wins, except that an explicit cause replaces a timeout. Cost:
// O(1) for j plus O(descendants) for the walk, which runs on the caller;
// the OnCancel callbacks it reaches run on the executor (see OnCancel).
func (j *Job) Cancel(cause error) bool { return j.cancel(cause, byCancel) }
