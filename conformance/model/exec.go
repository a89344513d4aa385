package model

import (
	"fmt"
	"slices"
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
		// A nursery that the return closes ends at that close, unless it
		// was cancelled (or ended) before the failure set out. One that
		// the failure's own propagation cancelled may still be open when
		// the body returns.
		for _, k := range x.kids {
			if k.nursery && !k.closed && (k.cancelAsync || !k.cancel && !k.state.Terminal()) {
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
