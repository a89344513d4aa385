package conformance

import (
	"sync/atomic"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// nurseryCancelCases check spec 04 §2.3 on nurseries from Open: a cancelled
// nursery goes Cancelling -> Cancelled (or Failed) as soon as its children
// and leases are done, without Close, AwaitAll or its parent's body
// returning (DESIGN "Nursery cancellation").
func nurseryCancelCases() []Case {
	return []Case{
		mk("NurseryCancelledEndsWithoutClose", "04 §2.3 Cancelling -> Cancelled; DESIGN Nursery cancellation", nurseryCancelledEnds),
		mk("NurseryCancelledWaitsForChildrenAndLeases", "04 §2.3 last child completes; 02 PromiseChildLease", nurseryCancelledWaits),
		mk("NurseryCancelledByParentOrFailure", "04 §2.3 parent cancelled; 04 §4.1 error-induced", nurseryCancelledByParent),
	}
}

// inSupervisor runs f in a SupervisorScope of a root job: the nurseries f
// opens there fail nothing else, and the scope is the waiter of f's waits.
func inSupervisor(rt *kc.Runtime, p *probe, f func(sup *kc.Job)) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(sup *kc.Job) error { f(sup); return nil })
	}))
}

// An empty nursery that is cancelled is terminal when Cancel returns, or,
// with OnCancel callbacks, once they have run (they run on the executor,
// and no callback outlives its job): its Result, TryResult, Done, OnCancel
// (before and after) and Join show it.
func nurseryCancelledEnds(rt *kc.Runtime, p *probe) {
	inSupervisor(rt, p, func(sup *kc.Job) {
		m, err := sup.Open()
		if !p.job("Open", m, err) {
			return
		}
		p.check(m.Cancel(errCause), "Cancel: got false; want true")
		p.state("empty nursery without callbacks once Cancel returned (no Close)", m, kc.Cancelled)
		n, err := sup.Open()
		if !p.job("Open", n, err) {
			return
		}
		var fired atomic.Int32
		n.OnCancel(func() { fired.Add(1) })
		done := n.Done()
		p.check(n.Cancel(errCause), "Cancel: got false; want true")
		p.check(closed(done), "Done of the cancelled nursery once Cancel returned: got open; want closed")
		stop := p.deadman("Join of a cancelled empty nursery", func() { sup.Cancel(nil) })
		p.is("Join of the cancelled empty nursery", n.Join(sup), kc.ErrCancelled, errCause)
		p.is("AwaitAll of the cancelled empty nursery", n.AwaitAll(sup), kc.ErrCancelled, errCause)
		stop()
		p.state("empty nursery once Join returned (no Close)", n, kc.Cancelled)
		res, ok := n.TryResult()
		p.check(ok, "TryResult of the cancelled empty nursery: got pending; want done")
		p.is("TryResult of the cancelled empty nursery", res, kc.ErrCancelled, errCause)
		eq(p, "OnCancel callbacks registered before Cancel, run", fired.Load(), int32(1))
		var late atomic.Int32
		stopLate := n.OnCancel(func() { late.Add(1) })
		eq(p, "OnCancel registered on the cancelled nursery, run at once", late.Load(), int32(1))
		p.check(!stopLate(), "stop of an OnCancel that already ran: got true; want false")
		_, err = n.Launch(nop)
		p.is("Launch into the cancelled nursery", err, kc.ErrCancelled)
	})
}

// A cancelled nursery stays Cancelling while a child or a lease holds it,
// and ends when the last of them goes; Join from the parent's body returns
// then.
func nurseryCancelledWaits(rt *kc.Runtime, p *probe) {
	inSupervisor(rt, p, func(sup *kc.Job) {
		n, err := sup.Open()
		if !p.job("Open", n, err) {
			return
		}
		gate := make(chan struct{})
		c, err := n.Launch(func(c *kc.Job) error { <-gate; return c.Check() })
		if !p.job("Launch", c, err) {
			return
		}
		release, err := n.Lease()
		if !p.noErr("Lease", err) {
			close(gate)
			return
		}
		p.check(n.Cancel(nil), "Cancel: got false; want true")
		eq(p, "cancelled nursery with a running child", n.State(), kc.Cancelling)
		_, ok := n.TryResult()
		p.check(!ok, "TryResult with a running child: got done; want pending")
		close(gate)
		stop := p.deadman("Join of the child", func() { sup.Cancel(nil) })
		p.is("Join of the child", c.Join(sup), kc.ErrCancelled)
		stop()
		eq(p, "cancelled nursery held by a lease", n.State(), kc.Cancelling)
		_, ok = n.TryResult()
		p.check(!ok, "TryResult while a lease is held: got done; want pending")
		release()
		stop = p.deadman("Join of a cancelled nursery whose child and lease are done (no Close)", func() { sup.Cancel(nil) })
		p.is("Join of the cancelled nursery", n.Join(sup), kc.ErrCancelled)
		stop()
		p.state("nursery", n, kc.Cancelled)
		res, ok := n.TryResult()
		p.check(ok, "TryResult after the last hold: got pending; want done")
		p.is("TryResult", res, kc.ErrCancelled)
	})
}

// A nursery cancelled by its parent nursery's cancellation, or by a failing
// child, ends as soon as its children do.
func nurseryCancelledByParent(rt *kc.Runtime, p *probe) {
	inSupervisor(rt, p, func(sup *kc.Job) {
		outer, err := sup.Open()
		if !p.job("outer Open", outer, err) {
			return
		}
		inner, err := outer.Open()
		if !p.job("inner Open", inner, err) {
			return
		}
		leaf, err := inner.Launch(sleeper)
		if !p.job("leaf Launch", leaf, err) {
			return
		}
		p.check(outer.Cancel(errCause), "Cancel of the outer nursery: got false; want true")
		stop := p.deadman("Join of nurseries cancelled by their parent (no Close)", func() { sup.Cancel(nil) })
		p.is("Join of the inner nursery", inner.Join(sup), kc.ErrCancelled, errCause)
		p.is("Join of the outer nursery", outer.Join(sup), kc.ErrCancelled, errCause)
		stop()
		p.state("leaf", leaf, kc.Cancelled)
		p.state("inner nursery", inner, kc.Cancelled)
		p.state("outer nursery", outer, kc.Cancelled)

		n, err := sup.Open()
		if !p.job("Open", n, err) {
			return
		}
		sib, err := n.Launch(sleeper)
		if !p.job("Launch sleeper", sib, err) {
			return
		}
		if _, err := n.Launch(failer); !p.noErr("Launch failer", err) {
			return
		}
		stop = p.deadman("Join of a nursery failed by its child (no Close)", func() { sup.Cancel(nil) })
		p.is("Join of the failed nursery", n.Join(sup), errBoom)
		stop()
		p.state("nursery with a failing child", n, kc.Failed)
		p.state("its other child", sib, kc.Cancelled)
	})
}
