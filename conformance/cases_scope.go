package conformance

import (
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// leaseCases are spec 02's PromiseChildLease rules.
func leaseCases() []Case {
	return []Case{
		mk("LeaseKeepsNurseryOpen", "02 PromiseChildLease", leaseKeepsNurseryOpen),
		mk("LeaseKeepsJobOpen", "02 PromiseChildLease", leaseKeepsJobOpen),
		mk("LeaseCountsForWaitAll", "02 invariants: child count counts leases", leaseCountsForWaitAll),
	}
}

// scopeCases are spec 03's wait_all, launch-after-shutdown and state rules.
func scopeCases() []Case {
	return []Case{
		mk("WaitAllPoll", "03 wait_all timeout 0", waitAllPoll),
		mk("WaitAllTimeout", "03 wait_all timeout > 0", waitAllTimeout),
		mk("WaitAllForever", "03 wait_all timeout < 0", waitAllForever),
		mk("LaunchAfterCancel", "03 launch after shutdown", launchAfterCancel),
		mk("LaunchIntoClosing", "04 §2.3 Closing rejects spawns", launchIntoClosing),
		mk("StateAfterCancel", "04 §2.3 Cancelling", stateAfterCancel),
	}
}

// A lease keeps a closed nursery from finishing; releasing twice is harmless.
func leaseKeepsNurseryOpen(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		release, err := n.Lease()
		if !p.noErr("Lease", err) {
			return
		}
		n.Close()
		p.state("closed nursery holding a lease", n, kc.Closing)
		_, done := n.TryResult()
		p.check(!done, "TryResult while a lease is held: got done; want pending")
		p.is("WaitAll(0) while a lease is held", n.WaitAll(0), kc.ErrAgain)
		release()
		p.noErr("Join after release", n.Join(w))
		p.state("nursery after release", n, kc.Completed)
		completed := rt.Stats().JobsCompleted
		release() // harmless
		p.state("nursery after a second release", n, kc.Completed)
		eq(p, "JobsCompleted after a second release", rt.Stats().JobsCompleted, completed)
		_, err = n.Lease()
		p.is("Lease on a terminal job", err, kc.ErrClosed)
	})
}

// A lease keeps a job whose body has returned from finishing.
func leaseKeepsJobOpen(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		leased := make(chan func(), 1)
		c, err := j.Launch(func(c *kc.Job) error {
			release, err := c.Lease()
			p.noErr("Lease", err)
			leased <- release
			return err
		})
		if !p.job("Launch", c, err) {
			return nil
		}
		release := <-leased
		if release == nil {
			return nil
		}
		if !p.waitUntil("the body to return", func() bool { return c.State() != kc.Active }) {
			release()
			return nil
		}
		p.state("job whose body returned, holding a lease", c, kc.Closing)
		_, done := c.TryResult()
		p.check(!done, "TryResult while a lease is held: got done; want pending")
		release()
		p.noErr("Join after release", c.Join(j))
		p.state("job after release", c, kc.Completed)
		return nil
	}))
}

// WaitAll counts leases as children.
func leaseCountsForWaitAll(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		p.awaitRunWaiter(rt)
		release, err := n.Lease()
		if !p.noErr("Lease", err) {
			return
		}
		p.is("WaitAll(0) with a lease", n.WaitAll(0), kc.ErrAgain)
		p.is("WaitAll(5ms) with a lease", n.WaitAll(5*time.Millisecond), kc.ErrTimeout)
		before := rt.Stats().WaitersRegistered
		go func() {
			p.waitUntil("WaitAll(-1) to register", func() bool { return rt.Stats().WaitersRegistered > before })
			release()
		}()
		p.noErr("WaitAll(-1) until the release", n.WaitAll(-1))
		p.noErr("WaitAll(0) after the release", n.WaitAll(0))
		p.state("nursery after WaitAll (which does not close it)", n, kc.Active)
		p.noErr("AwaitAll", n.AwaitAll(w))
	})
}

func waitAllPoll(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		p.noErr("WaitAll(0) without children", n.WaitAll(0))
		gate := make(chan struct{})
		c, err := n.Launch(func(*kc.Job) error { <-gate; return nil })
		if !p.job("Launch", c, err) {
			return
		}
		p.is("WaitAll(0) with a running child", n.WaitAll(0), kc.ErrAgain)
		close(gate)
		p.noErr("WaitAll(-1)", n.WaitAll(-1))
		p.noErr("WaitAll(0) after the child finished", n.WaitAll(0))
		p.state("child", c, kc.Completed)
		p.noErr("AwaitAll", n.AwaitAll(w))
	})
}

func waitAllTimeout(rt *kc.Runtime, p *probe) {
	const d = 10 * time.Millisecond
	withNursery(rt, p, func(w, n *kc.Job) {
		gate := make(chan struct{})
		c, err := n.Launch(func(*kc.Job) error { <-gate; return nil })
		if !p.job("Launch", c, err) {
			return
		}
		start := time.Now()
		err = n.WaitAll(d)
		p.is("WaitAll(10ms) with a blocked child", err, kc.ErrTimeout)
		p.check(time.Since(start) >= d, "WaitAll(10ms): returned after %v; want at least %v", time.Since(start), d)
		p.state("child after WaitAll timed out", c, kc.Active)
		close(gate)
		start = time.Now()
		p.noErr("WaitAll(1m) with a finishing child", n.WaitAll(time.Minute))
		p.check(time.Since(start) < 30*time.Second, "WaitAll(1m): returned after %v; want as soon as the child finished", time.Since(start))
		p.state("child", c, kc.Completed)
		p.noErr("AwaitAll", n.AwaitAll(w))
	})
}

func waitAllForever(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		p.awaitRunWaiter(rt)
		gate := make(chan struct{})
		c, err := n.Launch(func(*kc.Job) error { <-gate; return nil })
		if !p.job("Launch", c, err) {
			return
		}
		before := rt.Stats().WaitersRegistered
		go func() {
			p.waitUntil("WaitAll(-1) to register", func() bool { return rt.Stats().WaitersRegistered > before })
			close(gate)
		}()
		p.noErr("WaitAll(-1)", n.WaitAll(-1))
		p.state("child when WaitAll(-1) returned", c, kc.Completed)
		p.state("nursery after WaitAll (which does not close it)", n, kc.Active)
		c2, err := n.Launch(nop)
		p.job("Launch after WaitAll", c2, err)
		p.noErr("AwaitAll", n.AwaitAll(w))
	})
}

// Launch, Async and Open into a cancelled or terminal job return
// ErrCancelled and run nothing.
func launchAfterCancel(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		ran := make(chan struct{}, 3)
		body := func(*kc.Job) error { ran <- struct{}{}; return nil }
		refused := func(when string) {
			c, err := n.Launch(body)
			p.is("Launch "+when, err, kc.ErrCancelled)
			p.check(c == nil, "Launch %s: got a job; want nil", when)
			_, err = kc.Async(n, func(*kc.Job) (int, error) { ran <- struct{}{}; return 0, nil })
			p.is("Async "+when, err, kc.ErrCancelled)
			_, err = n.Open()
			p.is("Open "+when, err, kc.ErrCancelled)
		}
		p.check(n.Cancel(nil), "Cancel: got false; want true")
		refused("after Cancel")
		p.is("AwaitAll", n.AwaitAll(w), kc.ErrCancelled)
		refused("into a terminal job")
		eq(p, "bodies run", len(ran), 0)

		// A job's body launching after it was cancelled.
		c, err := w.Launch(func(c *kc.Job) error {
			c.Cancel(nil)
			k, err := c.Launch(body)
			p.is("Launch from a cancelled body", err, kc.ErrCancelled)
			p.check(k == nil, "Launch from a cancelled body: got a job; want nil")
			return nil
		})
		if p.job("Launch", c, err) {
			p.is("Join", c.Join(w), kc.ErrCancelled)
		}
		eq(p, "bodies run", len(ran), 0)
	})
}

// A Closing job refuses new children with ErrClosed.
func launchIntoClosing(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		release, err := n.Lease()
		if !p.noErr("Lease", err) {
			return
		}
		n.Close()
		p.state("closed nursery", n, kc.Closing)
		c, err := n.Launch(nop)
		p.is("Launch into a Closing job", err, kc.ErrClosed)
		p.isNot("Launch into a Closing job", err, kc.ErrCancelled)
		p.check(c == nil, "Launch into a Closing job: got a job; want nil")
		_, err = kc.Async(n, func(*kc.Job) (int, error) { return 0, nil })
		p.is("Async into a Closing job", err, kc.ErrClosed)
		release()
		p.noErr("AwaitAll", n.AwaitAll(w))
		_, err = n.Launch(nop)
		p.is("Launch into a Completed job", err, kc.ErrCancelled)

		// A job whose body returned and that waits for a child is Closing too.
		gate := make(chan struct{})
		returned := make(chan *kc.Job, 1)
		parent, err := w.Launch(func(pj *kc.Job) error {
			_, err := pj.Launch(func(*kc.Job) error { <-gate; return nil })
			p.noErr("Launch", err)
			returned <- pj
			return nil
		})
		if !p.job("Launch", parent, err) {
			close(gate)
			return
		}
		<-returned
		p.waitUntil("the body to return", func() bool { return parent.State() != kc.Active })
		p.state("job whose body returned, with a running child", parent, kc.Closing)
		_, err = parent.Launch(nop)
		p.is("Launch into it", err, kc.ErrClosed)
		close(gate)
		p.noErr("Join", parent.Join(w))

		// So is a job whose body still runs once Close is called on it.
		self, err := w.Launch(func(sj *kc.Job) error {
			sj.Close()
			p.state("job whose running body called Close", sj, kc.Closing)
			_, err := sj.Launch(nop)
			p.is("Launch into it", err, kc.ErrClosed)
			return nil
		})
		if p.job("Launch", self, err) {
			p.noErr("Join", self.Join(w))
		}
	})
}

// A cancelled job is Cancelling while its children run, Cancelled after.
func stateAfterCancel(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		started, gate := make(chan struct{}), make(chan struct{})
		c, err := n.Launch(func(*kc.Job) error { close(started); <-gate; return nil }) // ignores cancellation
		if !p.job("Launch", c, err) {
			return
		}
		<-started
		p.check(n.Cancel(nil), "Cancel: got false; want true")
		p.state("cancelled nursery with a running child", n, kc.Cancelling)
		p.state("running child of a cancelled nursery", c, kc.Cancelling)
		_, done := n.TryResult()
		p.check(!done, "TryResult while Cancelling: got done; want pending")
		close(gate)
		p.is("AwaitAll", n.AwaitAll(w), kc.ErrCancelled)
		p.state("nursery", n, kc.Cancelled)
		p.state("child that returned nil after the cancel", c, kc.Cancelled)

		// Closing -> Cancelling -> Cancelled.
		m, err := w.Open()
		if !p.job("Open", m, err) {
			return
		}
		release, err := m.Lease()
		if !p.noErr("Lease", err) {
			return
		}
		m.Close()
		p.state("closed nursery", m, kc.Closing)
		p.check(m.Cancel(nil), "Cancel of a Closing nursery: got false; want true")
		p.state("cancelled Closing nursery", m, kc.Cancelling)
		release()
		p.is("Join", m.Join(w), kc.ErrCancelled)
		p.state("nursery", m, kc.Cancelled)
	})
}
