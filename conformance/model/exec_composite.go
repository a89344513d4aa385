package model

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
		pj := m.create(&Job{ID: c.ID + 1, Kind: JobLaunch}, n, nil) // no handle unless its body runs: nothing refers to it
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
	case OpForeignChain:
		// The scope and its children are not tracked as model jobs (no op
		// can name them); they all complete, and the counters say so.
		if x.cancel || m.refusal(x).Kind != evNil.Kind {
			m.invalid("op %d: a foreign chain needs a job that is not cancelled", op.N)
		}
		m.stats.JobsCreated += uint64(op.Count + 1)
		m.stats.JobsCompleted += uint64(op.Count + 1)
		m.obs(op, []EV{evNil})
	case OpSleep:
		// Sleep returns the cancellation error at once when cancelled
		// (outside a Shield), else after the duration.
		if m.effCancelled(x) {
			m.obs(op, []EV{evCancel(x.cause), evCancel(x.cause)})
		} else {
			m.obs(op, []EV{evNil, evNil})
		}
	case OpWaitAll:
		for _, k := range x.kids {
			if !k.state.Terminal() {
				m.invalid("op %d: j%d waits for its children, and j%d may never end", op.N, x.id, k.id)
			}
		}
		for _, l := range m.leases {
			if l.job == x && !l.done {
				m.invalid("op %d: j%d waits for its children while it holds a lease on itself", op.N, x.id)
			}
		}
		m.obs(op, []EV{evNil})
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
