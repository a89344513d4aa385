package model

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// Model runs p on the model of DESIGN.md's semantics and returns what a
// correct runtime must observe, or an error matching ErrInvalid if p breaks
// the determinism rules.
func Model(p *Program) (exp *Expect, err error) {
	m := newMachine(p, nil)
	return m.run()
}

func newMachine(p *Program, gen *generator) *machine {
	return &machine{p: p, jobs: map[int]*mjob{}, hooks: map[int]*mhook{}, leases: map[int]*mlease{},
		gen: gen, exp: &Expect{Ops: map[int]Obs{}, Jobs: map[int]JobObs{}, Hooks: map[int]int{}}}
}

func (m *machine) run() (exp *Expect, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, ok := r.(violation)
			if !ok {
				panic(r)
			}
			exp, err = nil, fmt.Errorf("%w: %s", ErrInvalid, v.msg)
		}
	}()
	p := m.p
	if p.Root == nil || p.Root.Body == nil || p.Root.Kind != JobRoot {
		m.invalid("no root body")
	}
	root := m.create(p.Root, nil, nil)
	if p.CtxCancelled {
		b := p.Root.Body
		if m.gen == nil && (len(b.Ops) > 0 || b.End.Kind == EndFail || b.End.Kind == EndPanic ||
			b.End.Kind == EndPark && b.End.After == AfterFail) {
			m.invalid("a body run with a cancelled context must not depend on whether it starts")
		}
		m.cancelJob(root, EV{Kind: ECtx}, byCancel)
	}
	m.runBody(root, p.Root.Body)
	if p.CtxCancelled {
		root.ran = RanEither
	}
	if !root.state.Terminal() {
		m.invalid("Run never returns: j%d is %v", root.id, root.state)
	}
	m.exp.Run = root.result
	// Runtime.Close cancels every live detached job with cause ErrClosed.
	ids := m.ids()
	for _, id := range ids {
		y := m.jobs[id]
		if y.attached || y == root {
			continue
		}
		if y.unsynced && !y.extCancel && !(y.insensitive && y.parked) {
			m.invalid("Close reaches detached j%d, which runs unsynchronised", y.id)
		}
		if !y.state.Terminal() {
			m.cancelJob(y, EV{Kind: EClosed}, byCancel)
		}
	}
	for _, id := range ids {
		y := m.jobs[id]
		if !y.state.Terminal() {
			m.invalid("j%d never ends (%v)", y.id, y.state)
		}
		g := len(y.errs)
		if y.groupOpen {
			g = y.group
		}
		m.exp.Jobs[id] = JobObs{State: y.state, Result: y.result, Errors: y.errs, Unordered: g, Ran: y.ran, NoHandle: y.noHandle}
	}
	for k, h := range m.hooks {
		m.exp.Hooks[k] = h.fired
	}
	m.exp.Stats = m.stats
	return m.exp, nil
}

func (m *machine) ids() []int {
	ids := make([]int, 0, len(m.jobs))
	for id := range m.jobs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// runBody runs x's body b to its end or its park. Its ops are ordered with
// each other, whatever was unordered around it.
func (m *machine) runBody(x *mjob, b *Block) {
	saved := m.async
	m.async = 0
	x.running, x.ran = true, RanYes
	if m.gen != nil {
		m.gen.fill(m, x, b)
	} else {
		for _, op := range b.Ops {
			m.execOp(x, op)
		}
	}
	x.reachedEnd = true
	m.execEnd(x, b.End)
	m.async = saved
}

func (m *machine) execEnd(x *mjob, e End) {
	if len(x.pending) > 0 {
		if e.Kind != EndReturn {
			m.invalid("j%d ends with %v while the failure of j%d reaches it unordered", x.id, e.Kind, x.pending[0].id)
		}
		for _, k := range x.kids {
			if k.nursery && !k.closed && !k.cancel && !k.state.Terminal() {
				m.invalid("j%d closes nursery j%d while the failure of j%d reaches it unordered", x.id, k.id, x.pending[0].id)
			}
		}
	}
	switch e.Kind {
	case EndReturn:
		m.bodyReturned(x, evNil)
	case EndFail:
		m.bodyReturned(x, EV{Kind: EFail, K: e.K})
	case EndPanic:
		m.bodyReturned(x, EV{Kind: EPanic, K: e.K})
	case EndCheck:
		if m.effCancelled(x) {
			m.bodyReturned(x, evCancel(x.cause))
		} else {
			m.bodyReturned(x, evNil)
		}
	case EndPark:
		x.after = e
		if m.effCancelled(x) {
			if e.After == AfterFail {
				m.bodyReturned(x, EV{Kind: EFail, K: e.K})
			} else if e.After == AfterErr {
				m.bodyReturned(x, evCancel(x.cause))
			} else {
				m.bodyReturned(x, evNil)
			}
			return
		}
		x.parked, x.running = true, false
	}
}

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

// joinResult is what Join (or Await, for an Async job) of t returns.
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
		if t.inflight && !t.cancel {
			m.invalid("op %d cancels j%d, which may be ending", op.N, t.id)
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
		if m.effCancelled(x) {
			m.obs(op, []EV{evCancel(x.cause)})
		} else {
			m.obs(op, []EV{evNil})
		}
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
		m.obs(op, nil, int(t.state))
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
			h.state, h.fired = 1, 1
		case !t.state.Terminal():
			t.hooks = append(t.hooks, h)
		}
		m.obs(op, nil, h.fired)
	case OpStop:
		h, ok := m.hooks[op.K]
		if !ok || h.owner != x || h.job != x && !settled(h.job) {
			m.invalid("op %d: stop of hook %d is not allowed", op.N, op.K)
		}
		res := h.state == 0
		if res {
			h.state = 2
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

// execComposite models the ops that run several API calls as one step.
func (m *machine) execComposite(x *mjob, op *Op) {
	c := op.Child
	switch op.Kind {
	case OpProduce:
		if r := m.refusal(x); r.Kind != ENil {
			m.obs(op, []EV{r})
			return
		}
		s := m.create(&Job{ID: c.ID, Kind: JobSupScope}, x, x)
		s.ran, s.running = RanYes, true
		pj := m.create(&Job{ID: c.ID + 1, Kind: JobLaunch}, s, s)
		pj.ran = RanYes
		vals := make([]int, op.Count)
		for i := range vals {
			vals[i] = i
		}
		closed := EV{Kind: EClosed, Cause: &EV{}}
		if op.K >= 0 {
			f := EV{Kind: EFail, K: op.K}
			closed = EV{Kind: EClosed, Cause: &f}
			m.bodyReturned(pj, f)
		} else {
			m.bodyReturned(pj, evNil)
		}
		m.bodyReturned(s, evNil)
		synced(s)
		m.obs(op, []EV{closed, s.result}, vals...)
	case OpActor:
		if r := m.refusal(x); r.Kind != ENil {
			m.obs(op, []EV{r})
			return
		}
		a := m.create(&Job{ID: c.ID, Kind: JobLaunch}, x, x)
		a.ran = RanYes
		n := op.Count
		if op.K >= 0 {
			n = op.K + 1
		}
		handled := make([]int, n)
		for i := range handled {
			handled[i] = i
		}
		x.waitingOn = a
		if op.K >= 0 {
			m.bodyReturned(a, EV{Kind: EFail, K: op.K})
		} else {
			m.bodyReturned(a, evNil)
		}
		x.waitingOn = nil
		err, _ := m.join(x, a)
		m.obs(op, []EV{evNil, evNil, err}, handled...)
	case OpActorCancel:
		if r := m.refusal(x); r.Kind != ENil {
			m.obs(op, []EV{r})
			return
		}
		a := m.create(&Job{ID: c.ID, Kind: JobLaunch}, x, x)
		a.unsynced, a.insensitive, a.parked, a.asyncEnd = true, true, true, true
		a.after = End{Kind: EndPark, After: AfterErr}
		x.waitingOn = a
		ok := m.cancelJob(a, evNil, byCancel)
		x.waitingOn = nil
		err, _ := m.join(x, a)
		m.obs(op, []EV{evNil, err, {Kind: EClosed}}, b2i(ok))
	case OpProduceCancel:
		if r := m.refusal(x); r.Kind != ENil {
			m.obs(op, []EV{r})
			return
		}
		n := m.create(&Job{ID: c.ID, Kind: JobNursery}, x, x)
		pj := m.create(&Job{ID: c.ID + 1, Kind: JobLaunch}, n, x)
		pj.unsynced, pj.insensitive, pj.parked, pj.asyncEnd = true, true, true, true
		pj.after = End{Kind: EndPark, After: AfterErr}
		ok := m.cancelJob(n, evNil, byCancel)
		m.closeNursery(n)
		err, _ := m.join(x, n)
		m.obs(op, []EV{evNil, {Kind: EClosed}, err}, b2i(ok))
	case OpSelect:
		switch {
		case m.effCancelled(x):
			m.obs(op, []EV{evCancel(x.cause)}, -1)
		case op.K < 0 || op.K > 1:
			m.invalid("op %d: Select with no ready case blocks forever", op.N)
		default:
			m.obs(op, []EV{evNil}, op.K)
		}
	case OpSelectRepeat:
		m.obs(op, []EV{evAny})
	case OpPoolDiscard:
		if m.effCancelled(x) {
			m.invalid("op %d: a cancelled job cannot wait for its child to be ready", op.N)
		}
		y := m.create(&Job{ID: c.ID, Kind: JobLaunch}, x, x)
		y.ran, y.asyncEnd = RanYes, true
		x.waitingOn = y
		m.bodyReturned(y, evNil)
		x.waitingOn = nil
		err, _ := m.join(x, y)
		m.obs(op, []EV{evNil, err})
	case OpJoinSelf:
		for a := x; a != nil; a = a.parent {
			if a.id == op.Target || op.Target < 0 && a == x {
				m.obs(op, []EV{evAny})
				return
			}
			if !a.attached {
				break
			}
		}
		m.invalid("op %d: j%d is not j%d or an ancestor it is attached to", op.N, op.Target, x.id)
	default:
		m.invalid("op %d: unknown kind %d", op.N, op.Kind)
	}
}

var _ = errors.New
