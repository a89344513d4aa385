package conformance

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// More of treeEndCases (cases_tree_end.go): leases against the end of the
// job they hold, its parent's cancellation and Runtime.Close.

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
