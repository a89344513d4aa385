package conformance

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
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

// closeEarlyBound is how long closeWaitsForLeasedDetached gives a Close that
// does not wait for a job it cancelled to return anyway.
const closeEarlyBound = 50 * time.Millisecond

// Close waits until every detached job is terminal, also one whose body has
// returned but that a lease held outside the runtime keeps from ending: it
// cancels the job, and returns only once the lease is released and the job
// has ended Cancelled with cause ErrClosed. No task of the job runs while
// Close waits (its body is done), so waiting for the executor's tasks is
// not enough. Deterministic on a correct runtime (Close cannot return
// before the release); it catches one that does not wait when that Close
// returns within closeEarlyBound of cancelling the job.
func closeWaitsForLeasedDetached(rt *kc.Runtime, p *probe) {
	releases := make(chan func(), 1)
	var det *kc.Job
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var err error
		det, err = j.Launch(func(d *kc.Job) error {
			release, err := d.Lease()
			if err != nil {
				return err
			}
			releases <- release
			return nil
		}, kc.Detached())
		p.job("Launch Detached()", det, err)
		return nil
	}))
	if det == nil {
		return
	}
	release := <-releases
	closed := make(chan error, 1)
	go func() { closed <- rt.Close() }()
	if !p.waitUntil("Close to cancel the leased detached job", func() bool { return det.State() == kc.Cancelling }) {
		release()
		return
	}
	select {
	case err := <-closed:
		p.failf("Close with a detached job held by a lease: got a return (%v) before the lease was released; want Close to wait for the job", err)
		release()
		return
	case <-time.After(closeEarlyBound):
	}
	release()
	stop := p.deadman("Close after the lease was released", func() {})
	p.noErr("Close", <-closed)
	stop()
	p.state("leased detached job after Close", det, kc.Cancelled)
	p.is("its Result", det.Result(), kc.ErrCancelled, kc.ErrClosed)
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

// leaseEndRounds is how many job ends LeaseRacesJobEnd races.
const leaseEndRounds = 300

// A Lease that races the end of a job either is refused (ErrClosed: the
// job is ending or has ended) or holds the job open until it is released:
// never does a job become terminal while a lease taken on it is held. In
// each round a job whose body has returned waits for its one child; a
// goroutine takes and releases leases on it in a tight loop while the
// child ends, so that some Lease lands in the moment after the child's
// end left the job with no holds and before the job is published
// terminal. On a machine with two or more cores a runtime that grants
// that Lease is caught in some of the rounds; on one core the case checks
// only the ordinary orders.
func leaseRacesJobEnd(rt *kc.Runtime, p *probe) {
	oneCore := runtime.GOMAXPROCS(0) == 1
	withNursery(rt, p, func(w, n *kc.Job) {
		for round := range leaseEndRounds {
			gate := make(chan struct{})
			c, err := n.Launch(func(c *kc.Job) error {
				_, err := c.Launch(func(*kc.Job) error { <-gate; return nil })
				return err
			})
			if !p.job("Launch", c, err) {
				return
			}
			if !p.waitUntil("the job's body to return (Closing)", func() bool { return c.State() == kc.Closing }) {
				close(gate)
				return
			}
			var spinning atomic.Bool
			bad := make(chan string, 1)
			go func() {
				spinning.Store(true)
				for i := 0; ; i++ {
					if oneCore && i%64 == 63 {
						runtime.Gosched() // let the child end
					}
					release, err := c.Lease()
					if err != nil {
						if !errors.Is(err, kc.ErrClosed) {
							bad <- fmt.Sprintf("Lease of an ending job: got error %v; want ErrClosed", err)
						}
						break
					}
					if st := c.State(); st.Terminal() {
						// No release: on such a runtime it would end the
						// job a second time.
						bad <- fmt.Sprintf("job with a lease held: got state %v; want it not terminal until the release", st)
						break
					}
					release()
				}
				close(bad)
			}()
			for !spinning.Load() {
				runtime.Gosched()
			}
			close(gate)
			if msg, ok := <-bad; ok {
				p.failf("round %d: %s", round, msg)
				return
			}
			if !p.noErr("Join of the job", c.Join(w)) {
				return
			}
		}
	})
}
