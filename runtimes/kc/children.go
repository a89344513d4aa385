package kc

// attached reports whether j counts as a child of its parent: it holds the
// parent open and is cancelled with it. Roots and detached jobs do not.
func (j *Job) attached() bool {
	return j.parent != nil && (j.flags&flagDetached == 0 || j.rt.faults.has(faultDetachedAttached))
}

// parentDown reports whether j's parent's cancellation applies to j: j is
// attached and the parent's cancel walk has begun. It is how a job that is
// not on its parent's child list learns of the parent's cancellation.
func (j *Job) parentDown() bool {
	p := j.parent // the down load first: it is almost always 0
	return p != nil && p.down.Load() != 0 && j.attached()
}

// refusal reports why a job in state s refuses new children and holds:
// ErrCancelled if it is cancelled (outside a Shield) or terminal or
// finishing, ErrClosed if it is Closing; nil if it accepts them.
func refusal(s uint64) error {
	switch {
	case stateOf(s).Terminal(), s&(bitCancel|bitShield) == bitCancel:
		return ErrCancelled
	case s&bitClosed != 0:
		return ErrClosed
	}
	return nil
}

// attach initializes c as a child of j and counts it as a hold on j, or
// reports why j refuses children (see refusal).
//
// An attached child is not put on j's child list: it holds j by the count
// alone, and learns of j's cancellation by loading j.down (parentDown) at
// its checkpoints and at the start and end of its body. Only a child that
// must be reached by j's cancel walk (one that gets hooks, a Done channel or
// children of its own, or a nursery) is listed, by list. With a tracer or
// (most) faults installed every child is listed at once, so trace events and the
// fault tests see the whole tree. Attaching is then two atomic operations on
// j (a load and a CAS of the state word) and no lock.
func (j *Job) attach(c *Job, body bodyRunner, flags jobFlags) error {
	rt := j.rt
	c.rt, c.parent, c.body, c.flags = rt, j, body, flags
	if body == nil {
		c.state.Store(bitClaimed) // before publication: a nursery has no body to run
	}
	if !c.attached() {
		if err := refusal(j.state.Load()); err != nil {
			return err
		}
		if j.IsCancelled() {
			return ErrCancelled
		}
		if err := rt.addTop(c); err != nil {
			return err
		}
		rt.stats.add(cCreated)
		rt.trace(Event{Kind: EvJobCreate, Job: c, Parent: j})
		return nil
	}
	s := j.state.Load()
	if s&bitListed == 0 {
		j.list() // a job with children must be reachable by its parent's walk
		s = j.state.Load()
	}
	if s&bitCancel == 0 && j.parentDown() && !rt.faults.has(faultLazyCancelIgnored) {
		// Listed (maybe by another goroutine, whose list has not yet
		// cancelled j after finding the parent's walk begun: list cancels
		// after unlocking the parent), or never to be reached by that walk:
		// the parent's Cancel may have returned, so refuse as it would.
		j.takeParentCancel()
		s = j.state.Load()
	}
	var open uint64
	if flags&flagOpen != 0 {
		open = bitHasOpen
	}
	for ; ; s = j.state.Load() {
		if err := refusal(s); err != nil {
			return err
		}
		if j.state.CompareAndSwap(s, (s+oneHold)|open) {
			break
		}
	}
	rt.stats.add(cCreated)
	if rt.tracer != nil || rt.faults.listsEagerly() || flags&flagOpen != 0 {
		if rt.tracer != nil {
			rt.trace(Event{Kind: EvJobCreate, Job: c, Parent: j})
		}
		c.list()
		if flags&flagOpen != 0 && j.state.Load()&bitEnded != 0 {
			c.Close() // j's body ended before c was listed: do its auto-close
		}
	}
	return nil
}

// list puts j on its parent's child list, once, so that the parent's cancel
// walk reaches it; a job must be listed before it gets hooks (OnCancel, a
// cancellable wait), a Done channel or children. If the parent's walk has
// already begun (it snapshots the list under the parent's lock, after
// storing down), list cancels j itself, with the parent's cause. A listed
// job is unlinked when it ends (childDone), unless that walk took it off
// the list first. Roots and detached jobs have no list to be on.
func (j *Job) list() {
	if j.state.Load()&bitListed != 0 || !j.attached() {
		return
	}
	p := j.parent // not terminal while j is not
	p.mu.Lock()
	// A terminal j has released p and will never unlink itself: it must
	// not be linked (nor marked, or its release, racing with us, would
	// unlink what was never linked). A j that becomes terminal after the
	// CAS reads bitListed after it, and unlinks itself (childDone).
	for s := j.state.Load(); ; s = j.state.Load() {
		if s&bitListed != 0 || stateOf(s).Terminal() {
			p.mu.Unlock()
			return
		}
		if j.state.CompareAndSwap(s, s|bitListed) {
			break
		}
	}
	j.next = p.head
	if p.head != nil {
		p.head.prev = j
	}
	p.head = j
	down, cause := p.down.Load() != 0, p.cerr
	if j.rt.tracer != nil {
		j.rt.trace(Event{Kind: EvJobChildAttach, Job: j, Parent: p})
	}
	p.mu.Unlock()
	if down {
		j.cancel(cause, byPropagation)
	}
}

// unlinkChildLocked takes c off j's child list, unless j's cancel walk
// took it off already (cancelWalkLocked detaches the list it snapshots):
// a linked c is the head or has a prev, a detached one neither.
func (j *Job) unlinkChildLocked(c *Job) {
	if c.prev == nil && j.head != c {
		return
	}
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

// takeParentCancel cancels j with its parent's cause: j was not on the
// parent's child list when the parent's walk ran, and learnt of it later.
func (j *Job) takeParentCancel() { j.cancel(j.parent.cause(), byPropagation) }

// cause returns j's cancellation error as recorded (nil if none), read
// under j.mu.
func (j *Job) cause() *cancelError {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cerr
}
