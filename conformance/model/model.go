package model

import (
	"slices"

	"github.com/kcbench/kcbench/runtimes/kc"
)

func (m *machine) effCancelled(x *mjob) bool { return x.cancel && x.shield == 0 }

// refusal is the error Launch/Open/Scope into t returns, or ENil.
func (m *machine) refusal(t *mjob) EV {
	if t.state.Terminal() || m.effCancelled(t) {
		return EV{Kind: ECancel}
	}
	if t.closed {
		return EV{Kind: EClosed}
	}
	return evNil
}

func (m *machine) create(spec *Job, parent, owner *mjob) *mjob {
	x := &mjob{id: spec.ID, spec: spec, parent: parent, owner: owner, state: kc.Active}
	switch spec.Kind {
	case JobSupervisor, JobSupScope, JobSupNursery:
		x.sup = true
	}
	switch spec.Kind {
	case JobScope, JobSupScope, JobTimeout:
		x.scope = true
	case JobNursery, JobSupNursery:
		x.nursery = true
	}
	x.attached = parent != nil && spec.Kind != JobDetached
	if x.attached {
		parent.holds++
		parent.kids = append(parent.kids, x)
	}
	if owner != nil && !x.scope { // a scope is over when its op returns: nothing refers to it
		owner.owned = append(owner.owned, x)
	}
	if _, dup := m.jobs[x.id]; dup {
		m.invalid("job j%d made twice", x.id)
	}
	m.jobs[x.id] = x
	m.stats.JobsCreated++
	return x
}

// subtree calls f for x's attached descendants (not x).
func subtree(x *mjob, f func(*mjob)) {
	for _, k := range x.kids {
		f(k)
		subtree(k, f)
	}
}

// checkQuiet is the rule for every cancellation: nothing it reaches may be
// running unsynchronised or ending unordered (its outcome would depend on
// where the cancellation finds it). Jobs whose end is what makes this
// cancellation (m.fin) are terminal by then, and so is everything below them.
func (m *machine) checkQuiet(x *mjob) {
	var visit func(y *mjob)
	visit = func(y *mjob) {
		if slices.Contains(m.fin, y) {
			return
		}
		if y.running {
			m.invalid("cancellation of j%d reaches j%d while its body runs", x.id, y.id)
		}
		if y.unsynced && !y.extCancel && !(y.insensitive && y.parked) {
			m.invalid("cancellation of j%d reaches j%d, which runs unsynchronised", x.id, y.id)
		}
		if y.inflight && !y.extCancel {
			m.invalid("cancellation of j%d reaches j%d, which may be ending", x.id, y.id)
		}
		for _, k := range y.kids {
			visit(k)
		}
	}
	for _, k := range x.kids {
		visit(k)
	}
}

// settled reports whether x's observable state cannot change by itself.
func settled(x *mjob) bool {
	ok := !x.inflight && !(x.unsynced && !(x.insensitive && x.parked))
	subtree(x, func(y *mjob) {
		if y.inflight || y.unsynced && !(y.insensitive && y.parked) {
			ok = false
		}
	})
	return ok
}

// synced marks x and its attached descendants known to be in their model
// state (after a Join of x: all terminal).
func synced(x *mjob) {
	x.unsynced, x.inflight = false, false
	subtree(x, func(y *mjob) { y.unsynced, y.inflight = false, false })
}

// cancelJob requests cancellation (kc's requestCancelLocked + cancelWalk).
func (m *machine) cancelJob(x *mjob, cause EV, how int) bool {
	if x.state.Terminal() {
		return false
	}
	if x.cancel {
		if x.timedOut && how == byCancel && cause.Kind != ENil {
			x.cause, x.timedOut = cause, false
		}
		return false
	}
	m.checkQuiet(x)
	if x.unsynced && !x.insensitive && !x.running {
		m.invalid("cancellation reaches j%d, which runs unsynchronised", x.id)
	}
	if x.unsynced && x.insensitive {
		x.ran = RanEither
	}
	x.cancel, x.cause, x.timedOut = true, cause, how == byTimeout
	x.extCancel = !x.running
	x.cancelAsync = m.async > 0
	x.state = kc.Cancelling
	m.stats.CancellationsRequested++
	if x.shield == 0 {
		m.walk(x)
	}
	return true
}

// walk is the cancel walk: children, then hooks, then the parked body's
// wake (which kc does through the wait's hook; it is unordered anyway).
// kc runs the callbacks the walk claims on a task of the executor, which
// drops the walk's hold only once they have run, after Cancel has
// returned: a walk that claimed one leaves x's end unordered (asyncRel),
// so x is not settled until it is joined.
func (m *machine) walk(x *mjob) {
	x.walked = true
	x.holds++ // the walk holds x while it runs
	for _, k := range x.kids {
		if !k.state.Terminal() {
			if k.unsynced && k.insensitive {
				k.ran = RanEither
			}
			m.cancelJob(k, x.cause, byPropagation)
		}
	}
	for _, h := range x.hooks {
		if h.state == hookArmed {
			x.asyncRel = true
			h.state = hookFired
			h.fired++
			if h.panics {
				// Unordered: the walk may wake x's body (its wait is a hook
				// too) before it calls this callback.
				m.async++
				m.fail(x, EV{Kind: EPanic, K: h.k})
				m.async--
			}
		}
	}
	if x.parked {
		m.wake(x)
	}
	m.release(x)
}

// fail records a failure on x and cancels it (kc's Job.fail).
func (m *machine) fail(x *mjob, err EV) {
	m.record(x, err, m.async > 0)
	m.cancelJob(x, err, byPropagation)
}

func (m *machine) record(x *mjob, err EV, async bool) {
	if (async || x.groupOpen) && !x.groupOpen {
		x.groupOpen, x.group = true, len(x.errs)
	}
	x.errs = append(x.errs, err)
}

// wake ends a parked body whose wait was cancelled.
func (m *machine) wake(x *mjob) {
	x.parked = false
	m.async++
	defer func() { m.async-- }()
	var err EV
	switch x.after.After {
	case AfterErr:
		err = evCancel(x.cause)
	case AfterFail:
		err = EV{Kind: EFail, K: x.after.K}
	}
	m.bodyReturned(x, err)
}

// bodyReturned is kc's end-of-body transition.
func (m *machine) bodyReturned(x *mjob, err EV) {
	if m.async > 0 {
		x.asyncRel = true
	}
	x.running = true // its own cancellation, not one from outside
	if err.Kind != ENil {
		if err.Kind == ECancel {
			m.cancelJob(x, *err.Cause, byPropagation)
		} else {
			m.record(x, err, m.async > 0)
			m.cancelJob(x, err, byPropagation)
		}
	}
	x.running = false
	x.closed = true
	if x.state == kc.Active {
		x.state = kc.Closing
	}
	for _, k := range x.kids {
		if k.nursery && !k.state.Terminal() {
			m.closeNursery(k)
		}
	}
	x.bodyDone = true
	m.maybeFinish(x)
}

func (m *machine) closeNursery(n *mjob) {
	if n.state.Terminal() {
		return
	}
	n.closed, n.bodyDone = true, true
	if n.state == kc.Active {
		n.state = kc.Closing
	}
	m.maybeFinish(n)
}

func (m *machine) release(x *mjob) {
	if m.async > 0 {
		x.asyncRel = true
	}
	x.holds--
	m.maybeFinish(x)
}

// maybeFinish finishes x once nothing holds it and its body is done (a
// cancelled nursery needs no Close: DESIGN.md "Nursery cancellation").
func (m *machine) maybeFinish(x *mjob) {
	if x.state.Terminal() || x.holds > 0 {
		return
	}
	if x.bodyDone || x.nursery && x.cancel {
		m.finish(x)
	}
}

// firstErr is x's Result when Failed: its first failure, or any of the
// unordered ones if they began first.
func (x *mjob) firstErr() EV {
	if x.groupOpen && x.group == 0 && len(x.errs) > 1 {
		return EV{Kind: EOneOf, Alts: append([]EV(nil), x.errs...)}
	}
	return x.errs[0]
}

func (m *machine) finish(x *mjob) {
	st := kc.Completed
	switch {
	case len(x.errs) > 0 && !x.timedOut:
		st = kc.Failed
	case x.cancel:
		st = kc.Cancelled
	}
	x.state = st
	switch st {
	case kc.Completed:
		m.stats.JobsCompleted++
		x.result = evNil
	case kc.Failed:
		m.stats.JobsFailed++
		x.result = x.firstErr()
	case kc.Cancelled:
		m.stats.JobsCancelled++
		x.result = evCancel(x.cause)
	}
	// A job whose first failure is unordered (a panicking OnCancel
	// callback's, rule 7) delivers it unordered too: the walk that ran the
	// callback may have woken other jobs first (kc walks the children in
	// no set order), whose failures then reach the parent before it.
	async := m.async > 0 || x.asyncEnd || x.asyncRel || st == kc.Failed && x.groupOpen && x.group == 0
	if async {
		x.inflight = true
		m.async++
		defer func() { m.async-- }()
	}
	if !x.attached {
		return
	}
	m.fin = append(m.fin, x)
	defer func() { m.fin = m.fin[:len(m.fin)-1] }()
	p := x.parent
	if st == kc.Failed && !x.scope && !p.sup && !p.state.Terminal() {
		m.deliver(p, x.result, x, async)
	}
	ended := p.state.Terminal()
	m.release(p)
	if !ended && p.state.Terminal() {
		// kc publishes x terminal before it releases p (and a Worker may
		// batch that release): a wait that finds x terminal at once may
		// return before p ends, so p's end is unordered with x's waiters
		// until p itself is joined.
		p.inflight = true
	}
}

// deliver is a child's failure reaching its parent p (kc's childDone).
func (m *machine) deliver(p *mjob, err EV, from *mjob, async bool) {
	sync := p.running && p.waitingOn == from
	if async && !sync && p.running && !p.cancel {
		p.pending = append(p.pending, from)
	}
	m.record(p, err, async && !sync)
	m.cancelJob(p, err, byPropagation)
}
