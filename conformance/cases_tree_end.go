package conformance

import (
	"runtime"
	"weak"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// treeEndCases check the end of a job against the tree around it: a
// parent cancelled while the job's body was done but a lease still held it
// (the release must end it Cancelled), what a job that ended lets go of
// (its OnCancel callbacks), and a Launch from a job that its parent's
// cancellation reached only lazily (refused, detached or not). Each was
// found by a mutant of the core's end path or child list that passed the
// rest of the suite.
func treeEndCases() []Case {
	return []Case{
		mk("LeaseHeldChildTakesParentCancel", "02 PromiseChildLease; DESIGN States, Lease", leaseHeldChildTakesParentCancel),
		mk("OnCancelDroppedAtEnd", "02 HeapCancelNode; DESIGN OnCancel (no callback outlives its job)", onCancelDroppedAtEnd),
		mk("LaunchFromLazilyCancelledJob", "03 launch after shutdown; DESIGN Launch, Detached", launchFromLazilyCancelledJob),
	}
}

// A child whose body returned nil but which a lease still holds (Closing)
// is cancelled with its parent: when its parent is cancelled before the
// lease is released, the release ends it Cancelled, with the parent's
// cause, not Completed. Nothing looks at the child between the parent's
// Cancel and the release, and the child took no hook, Done channel or
// child of its own, so the parent's cancel walk has no reason to visit it:
// the release itself must find the parent's cancellation. Deterministic.
func leaseHeldChildTakesParentCancel(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		releases := make(chan func(), 1)
		c, err := n.Launch(func(c *kc.Job) error {
			release, err := c.Lease()
			if err != nil {
				return err
			}
			releases <- release
			return nil
		})
		if !p.job("Launch", c, err) {
			return
		}
		release := <-releases
		if !p.waitUntil("the child's body to return (Closing)", func() bool { return c.State() == kc.Closing }) {
			release()
			return
		}
		p.check(n.Cancel(errCause), "Cancel of the nursery: got false; want true")
		release()
		p.is("AwaitAll of the cancelled nursery", n.AwaitAll(w), kc.ErrCancelled, errCause)
		p.state("child released after its parent's cancel", c, kc.Cancelled)
		p.is("Result of that child", c.Result(), kc.ErrCancelled, errCause)
	})
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
		started, gate := make(chan struct{}), make(chan struct{})
		var detErr, attErr error
		var det, att *kc.Job
		c, err := n.Launch(func(c *kc.Job) error {
			close(started)
			<-gate
			det, detErr = c.Launch(nop, kc.Detached())
			att, attErr = c.Launch(nop)
			return nil
		})
		if !p.job("Launch", c, err) {
			close(gate)
			return
		}
		<-started // a child cancelled before it starts would skip its body
		p.check(n.Cancel(errCause), "Cancel of the nursery: got false; want true")
		close(gate)
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
