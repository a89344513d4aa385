package model

import (
	"slices"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// owned returns the job id that x's body made, or fails the program.
func (m *machine) owned(x *mjob, id int) *mjob {
	if id < 0 {
		return x
	}
	t, ok := m.jobs[id]
	if !ok || t.owner != x || t.scope {
		m.invalid("j%d refers to j%d, which it did not make", x.id, id)
	}
	return t
}

func (m *machine) nursery(x *mjob, id int) *mjob {
	t := m.owned(x, id)
	if !t.nursery {
		m.invalid("j%d is not a nursery", id)
	}
	return t
}

func (m *machine) obs(op *Op, errs []EV, ints ...int) {
	m.exp.Ops[op.N] = Obs{Errs: errs, Ints: ints}
}

// soleSource reports whether x's cancellation came (or comes) from t's
// failure alone: x's wait for t then ends with t (DESIGN.md: a finished
// target gives its own outcome), however the two race.
func (m *machine) soleSource(x, t *mjob) bool { return len(x.pending) == 1 && x.pending[0] == t }

func (m *machine) unpend(x, t *mjob) {
	x.pending = slices.DeleteFunc(x.pending, func(y *mjob) bool { return y == t })
}

// join is what Join (or Await, for an Async job) of t returns.
func (m *machine) join(x, t *mjob) (EV, int) {
	if !t.state.Terminal() {
		m.invalid("j%d waits for j%d, which never ends", x.id, t.id)
	}
	synced(t)
	m.unpend(x, t)
	if t.spec.Kind == JobAsync && t.state == kc.Completed {
		return evNil, t.id
	}
	return t.result, 0
}

func (m *machine) causeOf(k int) EV {
	if k < 0 {
		return evNil
	}
	return EV{Kind: ECause, K: k}
}

func (m *machine) execOp(x *mjob, op *Op) {
	if len(x.pending) > 0 {
		ok := op.Kind == OpRelease
		if op.Kind == OpJoin || op.Kind == OpAwaitAll {
			if t, found := m.jobs[op.Target]; found && slices.Contains(x.pending, t) {
				ok = true
			}
		}
		if !ok {
			m.invalid("j%d runs op %d while the failure of j%d reaches it unordered", x.id, op.N, x.pending[0].id)
		}
	}
	switch op.Kind {
	case OpLaunch:
		m.execLaunch(x, op)
	case OpJoin:
		t := m.owned(x, op.Target)
		if t == x {
			m.invalid("op %d: Join of itself (that is OpJoinSelf)", op.N)
		}
		if m.effCancelled(x) && !settled(t) && !m.soleSource(x, t) {
			m.invalid("cancelled j%d joins j%d, which may not have ended", x.id, t.id)
		}
		err, v := m.join(x, t)
		if t.spec.Kind == JobAsync {
			m.obs(op, []EV{err}, v)
		} else {
			m.obs(op, []EV{err})
		}
	case OpReady:
		t := m.owned(x, op.Target)
		if t == x || t.spec.Body == nil || t.scope || t.readied || !t.reachedEnd {
			m.invalid("op %d: Ready of j%d is not allowed", op.N, t.id)
		}
		if m.effCancelled(x) {
			m.invalid("cancelled j%d cannot wait for j%d to be ready", x.id, t.id)
		}
		t.readied, t.unsynced, t.insensitive = true, false, false
	case OpCancel:
		t := m.owned(x, op.Target)
		if t != x && (t.inflight || t.unsynced && !(t.insensitive && t.parked)) && !t.extCancel {
			m.invalid("op %d cancels j%d, which may be running or ending", op.N, t.id)
		}
		if op.Wait == 1 {
			if t == x {
				m.invalid("j%d cancels and joins itself", x.id)
			}
			if m.effCancelled(x) && !(t.state.Terminal() && settled(t)) {
				m.invalid("cancelled j%d joins j%d", x.id, t.id)
			}
			x.waitingOn = t
		}
		ok := m.cancelJob(t, m.causeOf(op.K), byCancel)
		x.waitingOn = nil
		if op.Wait == 1 {
			err, _ := m.join(x, t)
			m.obs(op, []EV{err}, b2i(ok))
		} else {
			m.obs(op, nil, b2i(ok))
		}
	case OpCheck:
		// Check and IsCancelled see the cancellation outside a Shield;
		// Done and Err once the cancel walk ran (deferred by a Shield).
		check, errv := evNil, evNil
		if m.effCancelled(x) {
			check = evCancel(x.cause)
		}
		if x.walked {
			errv = evCancel(x.cause)
		}
		m.obs(op, []EV{check, errv}, b2i(m.effCancelled(x)), b2i(x.walked))
	case OpScope:
		m.execScope(x, op)
	case OpShield:
		if m.effCancelled(x) {
			m.obs(op, []EV{evCancel(x.cause)})
			return
		}
		x.shield++
		if m.gen != nil && op.Ops == nil {
			m.gen.fillShield(m, x, op)
		} else {
			for _, in := range op.Ops {
				m.execOp(x, in)
			}
		}
		x.shield--
		if x.shield == 0 && x.cancel && !x.walked {
			m.walk(x)
		}
		m.obs(op, []EV{evNil})
	case OpOpen:
		if r := m.refusal(x); r.Kind != ENil {
			m.obs(op, []EV{r})
			return
		}
		m.create(op.Child, x, x)
		m.obs(op, []EV{evNil})
	case OpClose:
		m.closeNursery(m.nursery(x, op.Target))
	case OpAwaitAll:
		n := m.nursery(x, op.Target)
		if m.effCancelled(x) && !settled(n) && !m.soleSource(x, n) {
			m.invalid("cancelled j%d awaits j%d, which may not have ended", x.id, n.id)
		}
		m.closeNursery(n)
		err, _ := m.join(x, n)
		m.obs(op, []EV{err})
	case OpTryResult:
		n := m.nursery(x, op.Target)
		if !settled(n) {
			m.invalid("TryResult of j%d, which may be ending", n.id)
		}
		if n.state.Terminal() {
			m.obs(op, []EV{n.result}, 1)
		} else {
			m.obs(op, []EV{evNil}, 0)
		}
	case OpObserve:
		t := m.owned(x, op.Target)
		if t == x || !settled(t) {
			m.invalid("State of j%d, which may be changing", t.id)
		}
		// Done is closed once the cancel walk ran, or the job ended; Err
		// then gives the cancellation error, or for a job that ended
		// uncancelled, the one whose cause is kc.ErrFinished. IsCancelled: no settled job
		// is inside a Shield.
		done, errv := 0, evNil
		if t.walked || t.state.Terminal() {
			done, errv = 1, evFinished
			if t.cancel {
				errv = evCancel(t.cause)
			}
		}
		m.obs(op, []EV{errv}, int(t.state), done, b2i(t.cancel))
	case OpOnCancel:
		t := m.owned(x, op.Target)
		if t != x && !settled(t) {
			m.invalid("OnCancel on j%d, which may be changing", t.id)
		}
		if _, dup := m.hooks[op.K]; dup {
			m.invalid("hook %d made twice", op.K)
		}
		h := &mhook{job: t, owner: x, panics: op.Panic, k: op.K}
		m.hooks[op.K] = h
		switch {
		case t.cancel && t.walked:
			if op.Panic {
				m.invalid("hook %d would panic on its caller", op.K)
			}
			h.state, h.fired = hookFired, 1
		case !t.state.Terminal():
			t.hooks = append(t.hooks, h)
		}
		m.obs(op, nil, h.fired)
	case OpStop:
		h, ok := m.hooks[op.K]
		if !ok || h.owner != x || h.job != x && !settled(h.job) {
			m.invalid("op %d: stop of hook %d is not allowed", op.N, op.K)
		}
		res := h.state == hookArmed
		if res {
			h.state = hookStopped
		}
		m.obs(op, nil, b2i(res))
	case OpLease:
		t := m.owned(x, op.Target)
		if t != x && (!t.nursery || !settled(t)) {
			m.invalid("op %d: lease on j%d is not allowed", op.N, t.id)
		}
		if _, dup := m.leases[op.K]; dup {
			m.invalid("lease %d made twice", op.K)
		}
		if t.state.Terminal() {
			m.obs(op, []EV{{Kind: EClosed}})
			return
		}
		t.holds++
		m.leases[op.K] = &mlease{job: t, owner: x}
		m.obs(op, []EV{evNil})
	case OpRelease:
		l, ok := m.leases[op.K]
		if !ok || l.owner != x {
			m.invalid("op %d: release of lease %d is not allowed", op.N, op.K)
		}
		if !l.done {
			l.done = true
			m.release(l.job)
		}
	default:
		m.execComposite(x, op)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (m *machine) execLaunch(x *mjob, op *Op) {
	t := x
	if op.Target >= 0 {
		t = m.nursery(x, op.Target)
	}
	c := op.Child
	switch c.Kind {
	case JobLaunch, JobAsync, JobSupervisor, JobDetached:
	default:
		m.invalid("op %d launches a %v", op.N, c.Kind)
	}
	if r := m.refusal(t); r.Kind != ENil {
		m.obs(op, []EV{r})
		return
	}
	y := m.create(c, t, x)
	switch op.Wait {
	case 1:
		x.waitingOn = y
		m.runBody(y, c.Body)
		x.waitingOn = nil
		err, v := m.join(x, y)
		if c.Kind == JobAsync {
			m.obs(op, []EV{evNil, err}, v)
		} else {
			m.obs(op, []EV{evNil, err})
		}
		return
	case 2:
		y.asyncEnd, y.unsynced = true, true
		m.runBody(y, c.Body)
		if m.effCancelled(x) {
			m.invalid("cancelled j%d cannot wait for j%d to be ready", x.id, y.id)
		}
		y.unsynced, y.readied = false, true
	default:
		y.asyncEnd, y.unsynced = true, true
		m.runBody(y, c.Body)
		b := c.Body
		y.insensitive = len(b.Ops) == 0 && b.End.Kind == EndPark && b.End.After == AfterErr
	}
	m.obs(op, []EV{evNil})
}

func (m *machine) execScope(x *mjob, op *Op) {
	c := op.Child
	switch c.Kind {
	case JobScope, JobSupScope, JobTimeout:
	default:
		m.invalid("op %d: a %v is not a scope", op.N, c.Kind)
	}
	if r := m.refusal(x); r.Kind != ENil {
		m.obs(op, []EV{r})
		return
	}
	s := m.create(c, x, x)
	x.waitingOn = s
	switch {
	case c.Kind != JobTimeout || c.Timeout == TimeoutLong:
		m.runBody(s, c.Body)
	case c.Timeout == TimeoutZero:
		m.cancelJob(s, EV{Kind: ETimeoutSen}, byTimeout)
		s.ran, s.noHandle = RanNo, true
		m.bodyReturned(s, evNil)
	default:
		b := c.Body
		m.runBody(s, b)
		if len(b.Ops) > 0 || b.End.Kind != EndPark {
			m.invalid("op %d: a short timeout's body must wait for its cancellation at once", op.N)
		}
		m.async++
		m.cancelJob(s, EV{Kind: ETimeoutSen}, byTimeout)
		m.async--
	}
	x.waitingOn = nil
	if !s.state.Terminal() {
		m.invalid("scope j%d never ends", s.id)
	}
	synced(s)
	res := s.result
	if s.state == kc.Cancelled && s.timedOut {
		res = EV{Kind: ETimeout}
	}
	m.obs(op, []EV{res})
}
