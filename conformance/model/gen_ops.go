package model

// foreignChain is the length of an OpForeignChain.
const foreignChain = 300

// pickOp returns a random op that x may run now, or nil.
func (gn *generator) pickOp(m *machine, x *mjob, g gctx, inShield bool) *Op {
	cancelled := m.effCancelled(x)
	excl := gn.cfg.Exclude
	switch r := gn.rnd.IntN(100); {
	case r < 28:
		return gn.pickLaunch(m, x, g)
	case r < 36:
		return gn.pickSync(m, x)
	case r < 44:
		return gn.pickCancel(m, x)
	case r < 48:
		return &Op{Kind: OpCheck}
	case r < 56:
		if g.depth >= gn.cfg.MaxDepth {
			return nil
		}
		return gn.pickScope(m, x, g)
	case r < 60:
		if inShield || x.shield > 0 {
			return nil
		}
		return &Op{Kind: OpShield}
	case r < 65:
		kind := JobNursery
		if gn.chance(30) {
			kind = JobSupNursery
		}
		return &Op{Kind: OpOpen, Child: gn.newJob(m, kind, gctx{})}
	case r < 72:
		return gn.pickNurseryOp(m, x)
	case r < 76:
		return gn.pickObserve(m, x)
	case r < 82:
		return gn.pickHook(m, x, g)
	case r < 86:
		return gn.pickLease(m, x)
	case r < 88:
		c := gn.newJob(m, JobSupScope, gctx{})
		m.nextID++ // the producer's job
		k := -1
		if gn.chance(40) {
			k = gn.rnd.IntN(4)
		}
		n := gn.rnd.IntN(4)
		return &Op{Kind: OpProduce, Child: c, Count: n, Cap: gn.rnd.IntN(n + 1), K: k}
	case r < 91:
		k := -1
		if (!g.noFail || x.sup) && gn.quiet(m, x) && (x.sup || !gn.deliveryRisky(m, x)) && gn.chance(50) {
			k = gn.rnd.IntN(3)
		}
		n := 1 + gn.rnd.IntN(4)
		if k >= n {
			k = n - 1
		}
		return &Op{Kind: OpActor, Child: gn.newJob(m, JobLaunch, gctx{}), Count: n, Cap: gn.rnd.IntN(3), K: k}
	case r < 93:
		if excl&ExclCancelBeforeStart != 0 {
			return nil
		}
		if gn.chance(50) || excl&ExclChanCommitAfterCancel != 0 {
			return &Op{Kind: OpActorCancel, Child: gn.newJob(m, JobLaunch, gctx{})}
		}
		c := gn.newJob(m, JobNursery, gctx{})
		m.nextID++
		return &Op{Kind: OpProduceCancel, Child: c}
	case r < 95:
		k := gn.rnd.IntN(2)
		if cancelled && gn.chance(50) {
			k = -1
		}
		return &Op{Kind: OpSelect, K: k}
	case r < 96:
		if excl&ExclSelectRepeat != 0 {
			return nil
		}
		return &Op{Kind: OpSelectRepeat}
	case r < 97 && gn.chance(25):
		// A chain longer than any fixed cap on a backend's workers (the
		// stealing backend's was 64 + 4 per P): it ends only if the backend
		// keeps making progress while its tasks block where it cannot see.
		if x.cancel || m.refusal(x).Kind != evNil.Kind {
			return nil
		}
		return &Op{Kind: OpForeignChain, Count: foreignChain}
	case r < 97:
		if excl&ExclPoolDiscard != 0 || cancelled {
			return nil
		}
		return &Op{Kind: OpPoolDiscard, Child: gn.newJob(m, JobLaunch, gctx{})}
	case r < 99 && gn.chance(50):
		return &Op{Kind: OpSleep, K: gn.rnd.IntN(200)}
	case r < 99:
		for _, k := range x.kids {
			if !k.state.Terminal() || k.nursery && k.cancel && !k.closed && excl&ExclNurseryCancel != 0 {
				return nil
			}
		}
		for _, l := range m.leases {
			if l.job == x && !l.done {
				return nil
			}
		}
		return &Op{Kind: OpWaitAll}
	default:
		if excl&ExclSelfWait != 0 {
			return nil
		}
		var chain []int
		for a := x; a != nil; a = a.parent {
			chain = append(chain, a.id)
			if !a.attached {
				break
			}
		}
		t := chain[gn.rnd.IntN(len(chain))]
		if t == x.id {
			t = -1
		}
		return &Op{Kind: OpJoinSelf, Target: t}
	}
}

// openNurseries returns x's nurseries that accept children.
func openNurseries(m *machine, x *mjob) []*mjob {
	var out []*mjob
	for _, y := range x.owned {
		if y.nursery && m.refusal(y).Kind == ENil {
			out = append(out, y)
		}
	}
	return out
}

func (gn *generator) pickLaunch(m *machine, x *mjob, g gctx) *Op {
	if g.depth >= gn.cfg.MaxDepth || gn.budget < 2 {
		return nil
	}
	target := x
	op := &Op{Target: -1, Kind: OpLaunch}
	if ns := openNurseries(m, x); len(ns) > 0 && gn.chance(35) {
		target = ns[gn.rnd.IntN(len(ns))]
		op.Target = target.id
	}
	kind := [...]JobKind{JobLaunch, JobLaunch, JobAsync, JobAsync, JobSupervisor, JobDetached}[gn.rnd.IntN(6)]
	// Whether the child's failure is absorbed (goes nowhere or to a
	// supervisor) or reaches x (directly or through a nursery).
	absorbed := kind == JobDetached || target.sup
	cg := gctx{depth: g.depth + 1}
	switch r := gn.rnd.IntN(100); {
	case r < 45: // launch and join
		op.Wait = 1
		cg.noFail = !absorbed && (g.noFail && !x.sup || !gn.quiet(m, x))
	case r < 65 && kind != JobDetached: // runs on, unsynchronised
		cg.noFail = !absorbed
	case r < 88: // a blocker: runs its ops, then waits to be cancelled
		op.Wait = 2
		cg.noFail, cg.blocker = !absorbed, true
		cg.afterFail = absorbed || !g.noFail || x.sup
	default: // waits for its cancellation at once
		cg.insens = true
	}
	if target.nursery && !target.sup && gn.cfg.Exclude&ExclNurseryCancel != 0 {
		// Its failure would cancel the nursery, which then must end
		// without a Close.
		cg.noFail, cg.afterFail = true, false
	}
	if gn.deliveryRisky(m, x) && !absorbed {
		cg.noFail, cg.afterFail = true, false
	}
	op.Child = gn.newJob(m, kind, cg)
	return op
}

func (gn *generator) pickSync(m *machine, x *mjob) *Op {
	cancelled := m.effCancelled(x)
	var cands []*Op
	for _, y := range x.owned {
		switch {
		case len(x.pending) > 0 && y != x.pending[0]:
		case y.parked && !y.readied && y.unsynced && !y.insensitive && !cancelled:
			cands = append(cands, &Op{Kind: OpReady, Target: y.id})
		case y.state.Terminal() && (!cancelled || settled(y)):
			if y.nursery {
				cands = append(cands, &Op{Kind: OpAwaitAll, Target: y.id})
			} else {
				cands = append(cands, &Op{Kind: OpJoin, Target: y.id})
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	return cands[gn.rnd.IntN(len(cands))]
}

func (gn *generator) pickCancel(m *machine, x *mjob) *Op {
	cause := gn.rnd.IntN(5) - 1
	if gn.chance(25) {
		if !gn.quiet(m, x) {
			return nil
		}
		return &Op{Kind: OpCancel, Target: -1, K: cause}
	}
	var cands []*mjob
	xQuiet := gn.quiet(m, x) && !gn.deliveryRisky(m, x) // a failure after the cancellation may reach x
	lazy := gn.cfg.Exclude&ExclLazyCancel != 0
	for _, y := range x.owned {
		if lazy && y.cancel || y.attached && !xQuiet || (y.inflight || y.unsynced && !(y.insensitive && y.parked)) && !y.extCancel || !gn.quiet(m, y) {
			continue
		}
		cands = append(cands, y)
	}
	if len(cands) == 0 {
		return nil
	}
	y := cands[gn.rnd.IntN(len(cands))]
	op := &Op{Kind: OpCancel, Target: y.id, K: cause}
	if !y.nursery && (y.parked || y.state.Terminal()) && (!m.effCancelled(x) || y.state.Terminal() && settled(y)) && gn.chance(60) {
		op.Wait = 1
	}
	return op
}

func (gn *generator) pickScope(m *machine, x *mjob, g gctx) *Op {
	cg := gctx{depth: g.depth + 1}
	kind := [...]JobKind{JobScope, JobSupScope, JobTimeout}[gn.rnd.IntN(3)]
	c := gn.newJob(m, kind, cg)
	if kind == JobTimeout {
		c.Timeout = gn.rnd.IntN(3)
		if c.Timeout == TimeoutShort {
			cg.shortTO = true
			gn.ctxs[c.ID] = cg
		}
	}
	return &Op{Kind: OpScope, Child: c}
}

func (gn *generator) pickNurseryOp(m *machine, x *mjob) *Op {
	var ns []*mjob
	for _, y := range x.owned {
		if y.nursery {
			ns = append(ns, y)
		}
	}
	if len(ns) == 0 {
		return nil
	}
	n := ns[gn.rnd.IntN(len(ns))]
	cancelledOpen := n.cancel && !n.closed && gn.cfg.Exclude&ExclNurseryCancel != 0
	switch r := gn.rnd.IntN(4); {
	case r == 0:
		return &Op{Kind: OpClose, Target: n.id}
	case r == 1 && settled(n) && !cancelledOpen:
		return &Op{Kind: OpTryResult, Target: n.id}
	case r == 2 && n.holds == 0 || r == 3 && willEnd(m, n):
		if m.effCancelled(x) && !settled(n) {
			return nil
		}
		return &Op{Kind: OpAwaitAll, Target: n.id}
	}
	return nil
}

// willEnd reports whether nursery n ends once closed, without anything
// else from its owner.
func willEnd(m *machine, n *mjob) bool {
	ok := true
	subtree(n, func(y *mjob) {
		if y.parked && !y.cancel || y.nursery && !y.closed && !y.cancel {
			ok = false
		}
	})
	for _, l := range m.leases {
		if l.job == n && !l.done {
			ok = false
		}
	}
	return ok
}

func (gn *generator) observable(m *machine, x *mjob) []*mjob {
	var out []*mjob
	for _, y := range x.owned {
		if settled(y) && !(y.nursery && y.cancel && !y.closed && gn.cfg.Exclude&ExclNurseryCancel != 0) {
			out = append(out, y)
		}
	}
	return out
}

func (gn *generator) pickObserve(m *machine, x *mjob) *Op {
	c := gn.observable(m, x)
	if len(c) == 0 {
		return nil
	}
	return &Op{Kind: OpObserve, Target: c[gn.rnd.IntN(len(c))].id}
}

func (gn *generator) pickHook(m *machine, x *mjob, g gctx) *Op {
	var mine []int
	for _, k := range sortedKeys(m.hooks) {
		h := m.hooks[k]
		if h.owner == x && (h.job == x || settled(h.job)) {
			mine = append(mine, k)
		}
	}
	if len(mine) > 0 && gn.chance(35) {
		return &Op{Kind: OpStop, K: mine[gn.rnd.IntN(len(mine))]}
	}
	t := x
	if c := gn.observable(m, x); len(c) > 0 && gn.chance(50) {
		t = c[gn.rnd.IntN(len(c))]
	}
	op := &Op{Kind: OpOnCancel, Target: t.id, K: gn.hooks}
	if t == x {
		op.Target = -1
	}
	gn.hooks++
	nurseryFails := gn.cfg.Exclude&ExclNurseryCancel != 0 && (t.nursery || t.parent != nil && t.parent.nursery)
	if !g.noFail && !(t.cancel && t.walked) && !t.state.Terminal() && t.attached && !nurseryFails && gn.chance(25) {
		op.Panic = true
	}
	return op
}

func (gn *generator) pickLease(m *machine, x *mjob) *Op {
	for _, k := range sortedKeys(m.leases) {
		l := m.leases[k]
		if l.owner == x && !l.done && (!releaseMayFail(x, l) || gn.quiet(m, x)) && gn.chance(60) {
			return &Op{Kind: OpRelease, K: k}
		}
	}
	t := x
	if gn.chance(60) {
		var ns []*mjob
		for _, y := range gn.observable(m, x) {
			if y.nursery {
				ns = append(ns, y)
			}
		}
		if len(ns) == 0 {
			return nil
		}
		t = ns[gn.rnd.IntN(len(ns))]
	}
	op := &Op{Kind: OpLease, Target: t.id, K: gn.leases}
	if t == x {
		op.Target = -1
	}
	gn.leases++
	return op
}
