package model

import (
	"fmt"
	"math/rand/v2"
)

// Config sets the generator's size and the defects it leaves out.
type Config struct {
	MaxOps   int // upper bound on the ops of a program (default 40)
	MaxDepth int // upper bound on nesting (default 4)
	Exclude  Exclude
}

func (c Config) withDefaults() Config {
	if c.MaxOps <= 0 {
		c.MaxOps = 40
	}
	if c.MaxDepth <= 0 {
		c.MaxDepth = 4
	}
	return c
}

// gctx constrains a body being generated.
type gctx struct {
	noFail    bool // the body's job must not fail: its end is unordered with its owner
	afterFail bool // a parked body may fail after its cancellation
	blocker   bool // the body must end parked (its owner waits with Ready)
	insens    bool // no ops, park, return the wait's error
	shortTO   bool // a short WithTimeout: park at once
	depth     int
}

type generator struct {
	rnd    *rand.Rand
	cfg    Config
	budget int
	ctxs   map[int]gctx
	hooks  int
	leases int
}

// Generate returns the program of a seed: the same seed and Config give
// the same program.
func Generate(seed uint64, cfg Config) (*Program, error) {
	cfg = cfg.withDefaults()
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	gn := &generator{rnd: rnd, cfg: cfg, budget: 4 + rnd.IntN(cfg.MaxOps), ctxs: map[int]gctx{}}
	p := &Program{Seed: seed, Root: &Job{ID: 0, Kind: JobRoot, Body: &Block{}}}
	if cfg.Exclude&ExclRunCancelledCtx == 0 && rnd.IntN(16) == 0 {
		p.CtxCancelled = true
		p.Root.Body.End = [...]End{{Kind: EndReturn}, {Kind: EndCheck}, {Kind: EndPark, After: AfterErr},
			{Kind: EndPark, Park: ParkRecv, After: AfterNil}}[rnd.IntN(4)]
		gn.ctxs[0] = gctx{insens: true}
	}
	m := newMachine(p, gn)
	m.nextID = 1
	if _, err := m.run(); err != nil {
		return p, fmt.Errorf("generator bug: seed %d: %w\n%s", seed, err, p)
	}
	return p, nil
}

func (gn *generator) chance(n int) bool { return gn.rnd.IntN(100) < n }

func (gn *generator) emit(m *machine, x *mjob, ops *[]*Op, op *Op) {
	op.N = m.nextOp
	m.nextOp++
	*ops = append(*ops, op)
	gn.budget--
	was := x.cancel
	m.execOp(x, op)
	if !was && x.cancel && !(op.Kind == OpCancel && op.Target < 0) && gn.cfg.Exclude&ExclFailureAfterJoin != 0 {
		x.genStop = true // a child's failure cancelled x: see ExclFailureAfterJoin
	}
}

// deliveryRisky reports whether a child's failure reaching x now could
// leave x's nurseries in a state that depends on ExclFailureAfterJoin's race.
func (gn *generator) deliveryRisky(m *machine, x *mjob) bool {
	if gn.cfg.Exclude&ExclFailureAfterJoin == 0 {
		return false
	}
	for _, k := range x.kids {
		if k.nursery && !k.cancel && !k.state.Terminal() {
			return true
		}
	}
	return false
}

func (gn *generator) newJob(m *machine, kind JobKind, g gctx) *Job {
	j := &Job{ID: m.nextID, Kind: kind}
	m.nextID++
	if kind != JobNursery && kind != JobSupNursery {
		j.Body = &Block{}
	}
	gn.ctxs[j.ID] = g
	return j
}

// fill generates the ops and end of x's body b while the machine runs them.
func (gn *generator) fill(m *machine, x *mjob, b *Block) {
	g := gn.ctxs[x.id]
	if x.id == 0 && m.p.CtxCancelled {
		return // the root's fixed end
	}
	if g.insens {
		b.End = End{Kind: EndPark, Park: Park(gn.rnd.IntN(4)), After: AfterErr}
		return
	}
	if g.shortTO {
		b.End = End{Kind: EndPark, Park: Park(gn.rnd.IntN(4)), After: After(gn.rnd.IntN(3)), K: gn.rnd.IntN(4)}
		return
	}
	n := 1 + gn.rnd.IntN(8)
	for i := 0; i < n && gn.budget > 0 && len(x.pending) == 0 && !x.genStop; i++ {
		if op := gn.pickOp(m, x, g, false); op != nil {
			gn.emit(m, x, &b.Ops, op)
			gn.resolvePending(m, x, &b.Ops)
		}
	}
	gn.finishBlock(m, x, b, g)
}

// fillShield generates the ops of a Shield op of x.
func (gn *generator) fillShield(m *machine, x *mjob, op *Op) {
	g := gn.ctxs[x.id]
	op.Ops = []*Op{}
	n := 1 + gn.rnd.IntN(4)
	for i := 0; i < n && gn.budget > 0 && len(x.pending) == 0 && !x.genStop; i++ {
		var in *Op
		if gn.chance(30) && !x.cancel && gn.quiet(m, x) {
			in = &Op{Kind: OpCancel, Target: -1, K: gn.rnd.IntN(5) - 1}
		} else {
			in = gn.pickOp(m, x, g, true)
		}
		if in != nil {
			gn.emit(m, x, &op.Ops, in)
			gn.resolvePending(m, x, &op.Ops)
		}
	}
	if x.shield == 1 && x.cancel && !x.walked && len(x.pending) == 0 && !x.genStop {
		gn.syncAll(m, x, &op.Ops) // the walk at the exit must find everything synchronised
	}
}

// resolvePending emits the wait for the one job whose failure reaches x
// unordered, if there is one.
func (gn *generator) resolvePending(m *machine, x *mjob, ops *[]*Op) {
	if len(x.pending) != 1 {
		return
	}
	t := x.pending[0]
	kind := OpJoin
	if t.nursery {
		kind = OpAwaitAll
	}
	gn.emit(m, x, ops, &Op{Kind: kind, Target: t.id})
}

// quiet reports whether a cancellation of x now reaches nothing that runs
// unsynchronised.
func (gn *generator) quiet(m *machine, x *mjob) bool {
	ok := true
	subtree(x, func(y *mjob) {
		if y.running || y.unsynced && !y.extCancel && !(y.insensitive && y.parked) || y.inflight && !y.extCancel {
			ok = false
		}
	})
	return ok
}

// syncAll emits the Joins and Readies that synchronise x with everything
// it made.
func (gn *generator) syncAll(m *machine, x *mjob, ops *[]*Op) {
	for _, y := range x.owned {
		if len(x.pending) > 0 {
			return
		}
		cancelled := m.effCancelled(x)
		switch {
		case !y.unsynced && !y.inflight || y.insensitive && y.parked:
		case y.parked && !y.readied && !y.scope && y.unsynced && !cancelled:
			gn.emit(m, x, ops, &Op{Kind: OpReady, Target: y.id})
		case y.state.Terminal() && (!cancelled || settled(y)) && !y.nursery:
			gn.emit(m, x, ops, &Op{Kind: OpJoin, Target: y.id})
		case y.state.Terminal() && (!cancelled || settled(y)) && y.nursery:
			gn.emit(m, x, ops, &Op{Kind: OpAwaitAll, Target: y.id})
		}
	}
}

// releaseMayFail reports whether releasing l, a lease that x took on
// itself or on a job below it, may end l's job Failed, or a job between it
// and x that the job's end lets finish. Such a failure cancels its parent
// at the release, synchronously in x's body: a cancellation that must find
// x's subtree quiet (rule 1), as a Cancel by x must.
func releaseMayFail(x *mjob, l *mlease) bool {
	for t := l.job; t != nil && t != x; t = t.parent {
		if len(t.errs) > 0 && !t.timedOut {
			return true
		}
	}
	return false
}

// live reports whether x has a descendant that waits to be cancelled.
func live(x *mjob) bool {
	found := false
	subtree(x, func(y *mjob) {
		if y.parked && !y.cancel {
			found = true
		}
	})
	return found
}

func (gn *generator) finishBlock(m *machine, x *mjob, b *Block, g gctx) {
	if !x.genStop {
		gn.resolvePending(m, x, &b.Ops)
	}
	if x.genStop {
		for _, k := range sortedKeys(m.leases) {
			if l := m.leases[k]; l.owner == x && !l.done {
				gn.emit(m, x, &b.Ops, &Op{Kind: OpRelease, K: k})
			}
		}
		b.End = End{Kind: EndReturn}
		return
	}
	for _, k := range sortedKeys(m.leases) {
		l := m.leases[k]
		if l.owner == x && !l.done {
			if releaseMayFail(x, l) {
				gn.syncAll(m, x, &b.Ops) // the failure the release lets out cancels in x's subtree
			}
			gn.emit(m, x, &b.Ops, &Op{Kind: OpRelease, K: k})
			gn.resolvePending(m, x, &b.Ops) // a release can let a failure on its way end its source
		}
	}
	if len(x.pending) > 0 {
		b.End = End{Kind: EndReturn}
		return
	}
	if g.blocker {
		gn.syncAll(m, x, &b.Ops)
		b.End = End{Kind: EndPark, Park: Park(gn.rnd.IntN(4)), After: After(gn.rnd.IntN(2))}
		if g.afterFail && !m.effCancelled(x) && len(x.pending) == 0 && gn.chance(30) {
			b.End.After, b.End.K = AfterFail, gn.rnd.IntN(4)
		}
		return
	}
	canFail := !g.noFail
	if live(x) {
		gn.syncAll(m, x, &b.Ops)
		if len(x.pending) > 0 {
			b.End = End{Kind: EndReturn}
			return
		}
		if canFail && gn.chance(40) {
			b.End = End{Kind: EndFail + EndKind(gn.rnd.IntN(2)), K: gn.rnd.IntN(4)}
			return
		}
		if !x.cancel {
			gn.emit(m, x, &b.Ops, &Op{Kind: OpCancel, Target: -1, K: gn.rnd.IntN(5) - 1})
		}
		if len(x.pending) > 0 {
			b.End = End{Kind: EndReturn}
			return
		}
	}
	r := gn.rnd.IntN(100)
	switch {
	case canFail && r < 25:
		gn.syncAll(m, x, &b.Ops)
		b.End = End{Kind: EndFail, K: gn.rnd.IntN(4)}
	case canFail && r < 35:
		gn.syncAll(m, x, &b.Ops)
		b.End = End{Kind: EndPanic, K: gn.rnd.IntN(4)}
	case r < 65:
		b.End = End{Kind: EndCheck}
	default:
		b.End = End{Kind: EndReturn}
	}
	if len(x.pending) > 0 {
		b.End = End{Kind: EndReturn}
	}
}

// ErrUnknownExclusion is matched by ParseExclude's error for a name it
