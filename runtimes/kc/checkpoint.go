package kc

// IsCancelled reports whether cancellation of j was requested, by a Cancel
// of j or of an ancestor, or by a failure (its body's, or a child's that
// fails it), which cancels j too. It is false inside Shield, and for a
// terminal job that ended without cancellation: true for every Cancelled
// and Failed job, false for a Completed one. O(1) and lock-free:
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
