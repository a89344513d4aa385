package conformance

import (
	"runtime"
	"weak"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// treeEndCases check the end of a job against the tree around it: a
// parent cancelled while the job's body was done but a lease still held it
// (the release must end it Cancelled), what a job that ended lets go of
// (its OnCancel callbacks), a Launch from a job that its parent's
// cancellation reached only lazily (refused, detached or not), the name of
// each state, a Close that waits for a leased detached job, a walk that
// reaches a child after its younger siblings ended, and a Lease racing the
// end of a job. Each fails against a core with a plausible bug in its end
// path, child list or leases that no other case catches.
func treeEndCases() []Case {
	return []Case{
		mk("LeaseHeldChildTakesParentCancel", "02 PromiseChildLease; DESIGN States, Lease", leaseHeldChildTakesParentCancel),
		mk("OnCancelDroppedAtEnd", "02 HeapCancelNode; DESIGN OnCancel (no callback outlives its job)", onCancelDroppedAtEnd),
		mk("LaunchFromLazilyCancelledJob", "03 launch after shutdown; DESIGN Launch, Detached", launchFromLazilyCancelledJob),
		mk("StateNames", "DESIGN States: String gives the name", stateNames),
		mk("CloseWaitsForLeasedDetached", "05 Shutdown / draining; DESIGN Detached, Lease", closeWaitsForLeasedDetached),
		mk("WalkReachesChildAfterSiblingsEnd", "02 cancel walk; 04 cancellation of a nursery", walkReachesChildAfterSiblingsEnd),
		mk("LeaseRacesJobEnd", "02 PromiseChildLease; DESIGN Lease: no terminal state while a lease is held", leaseRacesJobEnd),
	}
}

// A job whose parent was cancelled refuses new children with ErrCancelled,
// detached ones included, also when the parent's cancel walk did not visit
// it (it took no hook, Done channel or child before the cancel) and it has
// not looked at its cancellation since: the Launch must find the parent's
// cancellation itself. The detached Launch comes first, as a detached child
// is not put on the job's child list and so does not make the job
// reachable by the walk first. Deterministic.
func launchFromLazilyCancelledJob(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		var detErr, attErr error
		var det, att *kc.Job
		c, ok := runAfterUnseenCancel(p, n, func(c *kc.Job) error {
			det, detErr = c.Launch(nop, kc.Detached())
			att, attErr = c.Launch(nop)
			return nil
		})
		if !ok {
			return
		}
		p.is("AwaitAll of the cancelled nursery", n.AwaitAll(w), kc.ErrCancelled, errCause)
		p.is("detached Launch from a child of the cancelled nursery", detErr, kc.ErrCancelled)
		p.check(det == nil, "detached Launch from a child of the cancelled nursery: got a job; want none")
		p.is("Launch from a child of the cancelled nursery", attErr, kc.ErrCancelled)
		p.check(att == nil, "Launch from a child of the cancelled nursery: got a job; want none")
		p.state("child", c, kc.Cancelled)
	})
}

// A job that ends without being cancelled drops its OnCancel callbacks:
// no callback outlives its job, so what a callback refers to can be
// collected once the job is terminal, even while the *Job itself is still
// referenced (held, as here, or kept in a map by a long-lived caller).
// The callback's stop function is dropped too, as it refers to the
// callback. Deterministic: runtime.GC completes a cycle, after which a
// weak pointer to an unreachable object is nil.
func onCancelDroppedAtEnd(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		ptrs := make(chan weak.Pointer[[256]byte], 1)
		c, err := n.Launch(func(c *kc.Job) error {
			obj := new([256]byte)
			ptrs <- weak.Make(obj)
			c.OnCancel(func() { obj[0]++ })
			return nil
		})
		if !p.job("Launch", c, err) {
			return
		}
		ptr := <-ptrs
		p.noErr("Join", c.Join(w))
		p.state("child", c, kc.Completed)
		runtime.GC()
		runtime.GC()
		p.check(ptr.Value() == nil, "what the OnCancel callback of a Completed job refers to: got it still reachable from the job; want it dropped with the callback")
		runtime.KeepAlive(c)
		p.noErr("AwaitAll", n.AwaitAll(w))
	})
}

// State.String gives each state's name, checked on jobs observed in each
// state (a report or log that prints a state must not mislabel it):
// Active and Closing nurseries, a Cancelling one held by a child that
// ignores the cancellation (which still ends Cancelled: its parent's
// cancellation reached it), and jobs that ended Completed, Failed and
// Cancelled. Deterministic.
func stateNames(rt *kc.Runtime, p *probe) {
	name := func(what string, j *kc.Job, want kc.State, wantName string) {
		if p.state(what, j, want) {
			eq(p, what+" State().String()", j.State().String(), wantName)
		}
	}
	withNursery(rt, p, func(w, n *kc.Job) {
		name("new nursery", n, kc.Active, "Active")
		gate := make(chan struct{})
		c, err := n.Launch(func(*kc.Job) error { <-gate; return nil })
		if !p.job("Launch", c, err) {
			return
		}
		n.Close()
		name("closed nursery with a child running", n, kc.Closing, "Closing")
		n.Cancel(errCause)
		name("cancelled nursery with a child running", n, kc.Cancelling, "Cancelling")
		close(gate)
		p.is("AwaitAll of the cancelled nursery", n.AwaitAll(w), kc.ErrCancelled)
		name("child that ignored the cancel", c, kc.Cancelled, "Cancelled")
		name("cancelled nursery once its child ended", n, kc.Cancelled, "Cancelled")
		d, err := w.Launch(nop)
		if p.job("Launch of a child of the supervisor", d, err) {
			p.noErr("Join of that child", d.Join(w))
			name("completed child", d, kc.Completed, "Completed")
		}
		f, err := w.Launch(failer)
		if p.job("Launch of a failing child of the supervisor", f, err) {
			p.is("Join of the failing child", f.Join(w), errBoom)
			name("failed child", f, kc.Failed, "Failed")
		}
	})
}

// A cancel walk reaches every child still running, also after siblings
// that came before and after it in the parent's bookkeeping ended: each
// child waits on its Done channel (so the walk, not a lazy look at the
// parent, must reach it), three children are started one after another,
// and the two started last are cancelled and joined one by one, newest
// first, before the nursery is cancelled (the order in which a child list
// that drops its newest entries badly loses the older ones). The first
// child must then be cancelled with the nursery. Deterministic; a child the walk misses
// would wait forever, so the case lets it go after stallBound and fails.
func walkReachesChildAfterSiblingsEnd(rt *kc.Runtime, p *probe) {
	const kids = 3
	withNursery(rt, p, func(w, n *kc.Job) {
		escape := make(chan struct{})
		var cs []*kc.Job
		for range kids {
			ready := make(chan struct{})
			c, err := n.Launch(func(c *kc.Job) error {
				done := c.Done()
				close(ready)
				select {
				case <-done:
					return nil
				case <-escape:
					return errBoom
				}
			})
			if !p.job("Launch", c, err) {
				close(escape)
				return
			}
			<-ready
			cs = append(cs, c)
		}
		for i := kids - 1; i > 0; i-- {
			cs[i].Cancel(errCause)
			p.is("Join of a child cancelled on its own", cs[i].Join(w), kc.ErrCancelled, errCause)
		}
		stop := p.deadman("the first child, once the nursery is cancelled", func() { close(escape) })
		p.check(n.Cancel(errCause2), "Cancel of the nursery: got false; want true")
		p.is("AwaitAll of the cancelled nursery", n.AwaitAll(w), kc.ErrCancelled, errCause2)
		stop()
		p.state("first child", cs[0], kc.Cancelled)
		p.is("first child's Result", cs[0].Result(), kc.ErrCancelled, errCause2)
	})
}
