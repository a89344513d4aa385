package conformance

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// More of cancelWaitCases (cases_cancel_wait.go): waits whose waiter or
// target is cancelled, or ends, at the moment the wait starts or wakes.

// A Join by a waiter that is cancelled just as the Join starts (after it
// looked at the waiter, before its wait is hooked onto the waiter) returns
// the waiter's cancellation at once, although the target never ends by
// itself: a wait that finds its waiter's cancel walk already done must
// wake itself. Each round lets the waiter into its Join and cancels it a
// varying few nanoseconds later, so that on a machine with two or more
// cores some rounds land in that window (a runtime that loses the wake
// there hangs until the deadman cancels the target); on one core the case
// checks only the ordinary orders.
func joinByWaiterCancelledAsItStarts(rt *kc.Runtime, p *probe) {
	var spin atomic.Int64
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		target, err := j.Launch(sleeper) // ends only when cancelled
		if !p.job("Launch the target", target, err) {
			return nil
		}
		defer target.Cancel(nil)
		end := time.Now().Add(raceBudget)
		for round := 0; moreRounds(round, end); round++ {
			var joining atomic.Bool
			w, err := j.Launch(func(w *kc.Job) error {
				joining.Store(true)
				return target.Join(w)
			})
			if !p.job("Launch the waiter", w, err) {
				return nil
			}
			// Bounded: a backend may run the waiter only once this body
			// blocks.
			for i := 0; i < 2000 && !joining.Load(); i++ {
				if i > 100 {
					runtime.Gosched()
				}
			}
			for range round % 32 {
				spin.Add(1)
			}
			w.Cancel(errCause)
			stop := p.deadman("Join by a waiter cancelled as the Join started", func() { target.Cancel(nil) })
			err = w.Join(j)
			stop()
			if !p.is(fmt.Sprintf("Join by a waiter cancelled as the Join started (round %d)", round), err, kc.ErrCancelled, errCause) {
				return nil
			}
			if target.State().Terminal() {
				return nil // the deadman fired
			}
		}
		return nil
	}))
}

// A Join of a nursery by a job detached from it, or by a scope inside such
// a job, is a plain wait, not a wait cycle: the nursery does not wait for
// its detached children, so it can end while they wait, and their Joins
// then return its outcome. Only an attached path up from the waiter to the
// target makes a cycle. Each detached job joins while the nursery is
// still open (the case waits for both waits to register before it closes
// the nursery), so that the cycle check is asked.
func detachedWaitOnLauncherWaits(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		p.awaitRunWaiter(rt)
		before := rt.Stats().WaitersRegistered
		got1, got2 := make(chan error, 1), make(chan error, 1)
		d1, err := n.Launch(func(d *kc.Job) error { got1 <- n.Join(d); return nil }, kc.Detached())
		if !p.job("Launch Detached()", d1, err) {
			return
		}
		d2, err := n.Launch(func(d *kc.Job) error {
			return d.Scope(func(s *kc.Job) error { got2 <- n.Join(s); return nil })
		}, kc.Detached())
		if !p.job("Launch Detached()", d2, err) {
			return
		}
		p.waitUntil("both Joins to register or return", func() bool {
			returned := 0
			if len(got1) > 0 {
				returned++
			}
			if len(got2) > 0 {
				returned++
			}
			return returned+int(rt.Stats().WaitersRegistered-before) >= 2
		})
		p.noErr("AwaitAll of the nursery", n.AwaitAll(w))
		p.noErr("Join of the nursery by a job detached from it", <-got1)
		p.noErr("Join of the nursery by a scope in a job detached from it", <-got2)
		p.noErr("Join of the detached job", d1.Join(w))
		p.noErr("Join of the detached job with a scope", d2.Join(w))
	})
}

// An Await whose target finishes while the awaiting job's cancel walk is
// under way (the walk has taken the await's cancel hook off the job, and
// is still cancelling the job's many children before it fires the hooks)
// returns the target's value, and the walk's late wake of that finished
// wait touches nothing else: the awaiting job ends Cancelled, with no
// failure and nothing run twice. A runtime that recycles the wait's node as
// soon as the await returns has the walk fire a node it no longer owns
// (here: as an empty OnCancel callback, a nil call that fails the job).
// Each round releases the target from a spinning goroutine a varying time
// after the Cancel starts; the walk over a thousand children leaves a
// window of a hundred microseconds or so, which the release hits in most
// rounds on a machine with two or more cores.
func awaitEndsDuringWaitersCancelWalk(rt *kc.Runtime, p *probe) {
	const kids = 1000
	var spin atomic.Int64
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		end := time.Now().Add(raceBudget)
		for round := 0; round < 10 || round < 200 && time.Now().Before(end); round++ {
			var release atomic.Bool
			d, err := kc.Async(j, func(*kc.Job) (int, error) {
				for i := 0; !release.Load(); i++ {
					if i > 1000 {
						runtime.Gosched()
					}
				}
				return 7, nil
			})
			if !p.noErr("Async", err) {
				return nil
			}
			got := make(chan error, 1)
			ready := make(chan struct{})
			c, err := j.Launch(func(c *kc.Job) error {
				for range kids {
					if _, err := c.Launch(sleeper); err != nil {
						close(ready)
						got <- err
						return err
					}
				}
				close(ready)
				v, err := d.Await(c)
				if err == nil && v != 7 {
					err = fmt.Errorf("value %d; want 7", v)
				}
				got <- err
				return nil
			})
			if !p.job("Launch", c, err) {
				release.Store(true)
				return nil
			}
			<-ready
			var start, spinning atomic.Bool
			go func() {
				spinning.Store(true)
				for !start.Load() {
				}
				for range round % 16 * 64 {
					spin.Add(1)
				}
				release.Store(true)
			}()
			for !spinning.Load() {
				runtime.Gosched()
			}
			start.Store(true)
			c.Cancel(errCause)
			err = <-got
			if err != nil && !p.is(fmt.Sprintf("round %d: Await by a job cancelled as the target ended", round), err, kc.ErrCancelled, errCause) {
				return nil
			}
			res := c.Join(j)
			if !p.is(fmt.Sprintf("round %d: Join of the awaiting job", round), res, kc.ErrCancelled, errCause) ||
				!eq(p, fmt.Sprintf("round %d: failures recorded on the awaiting job", round), len(c.Errors()), 0) {
				return nil
			}
			if _, err := d.Await(j); !p.noErr("Await of the target by its parent", err) {
				return nil
			}
		}
		return nil
	}))
}

// A job that took its Done channel, then joined a child that was running
// (a cancellable wait, woken by the child's end), and then completed, has
// its Done channel closed once it is terminal: the wait's clean-up, which
// drops what the wait registered on the job, keeps what Done registered.
// A runtime that lets the job end on a path that forgets the channel
// leaves every context-aware user of the job blocked on Done.
func doneClosedAtEndAfterWait(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		done := make(chan (<-chan struct{}), 1)
		c, err := j.Launch(func(c *kc.Job) error {
			done <- c.Done()
			started, gate := make(chan struct{}), make(chan struct{})
			k, err := c.Launch(func(*kc.Job) error { close(started); <-gate; return nil })
			if err != nil {
				return err
			}
			<-started // running: the Join waits instead of running it inline
			go close(gate)
			return k.Join(c)
		})
		if !p.job("Launch", c, err) {
			return nil
		}
		d := <-done
		// WaitAll, not a Join of c: a waiter registered on c would keep
		// c on the path that closes Done whatever else it registered.
		p.noErr("WaitAll until the job has ended", j.WaitAll(-1))
		p.state("job", c, kc.Completed)
		p.check(closed(d), "Done of a job that completed after a Join: got it open; want it closed")
		p.is("Err of the completed job", c.Err(), kc.ErrCancelled)
		return nil
	}))
}

// Cancelling a job that has no children, callbacks or leases and sleeps
// (the cheapest path a cancellation takes) while others are joined on it
// wakes those Joins once the job has ended: a Join from a plain goroutine
// and one from a sibling job both return the job's cancellation. The case
// waits for both Joins to register before it cancels.
func cancelSleepingLeafWakesJoins(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		p.awaitRunWaiter(rt)
		started := make(chan struct{})
		c, err := j.Launch(func(c *kc.Job) error { close(started); return c.Sleep(time.Hour) })
		if !p.job("Launch", c, err) {
			return nil
		}
		<-started // a job cancelled before it starts skips its body
		before := rt.Stats().WaitersRegistered
		fromGoroutine, fromSibling := make(chan error, 1), make(chan error, 1)
		go func() { fromGoroutine <- c.Join(nil) }()
		sib, err := j.Launch(func(s *kc.Job) error { fromSibling <- c.Join(s); return nil })
		if !p.job("Launch the sibling", sib, err) {
			c.Cancel(nil)
			return nil
		}
		p.waitUntil("both Joins to register", func() bool { return rt.Stats().WaitersRegistered-before >= 2 })
		p.check(c.Cancel(errCause), "Cancel of the sleeping job: got false; want true")
		stop := p.deadman("Join of a cancelled sleeping job from a sibling job", func() { sib.Cancel(nil) })
		p.is("Join from a sibling job", <-fromSibling, kc.ErrCancelled, errCause)
		stop()
		select {
		case err := <-fromGoroutine:
			p.is("Join from a goroutine", err, kc.ErrCancelled, errCause)
		case <-time.After(stallBound): // nothing can cancel a Join(nil): the goroutine is abandoned
			p.failf("Join of a cancelled sleeping job from a goroutine: got no return after %v; want it to return", stallBound)
		}
		p.state("job", c, kc.Cancelled)
		return nil
	}))
}

// A job with no children, callbacks or leases that cancels itself inside
// a Shield and then joins a sibling waits for the sibling, as any job in a
// Shield does (ShieldHidesCancelFromWaits checks a job with children): the
// cancellation, and the walk that wakes waits, wait for the Shield's exit.
// The Join returns nil once the sibling has completed, and the job ends
// Cancelled after the Shield.
func shieldedLeafJoinIgnoresCancel(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		p.awaitRunWaiter(rt) // so that the count below sees only the Join's registration
		gate := make(chan struct{})
		sib, err := j.Launch(func(*kc.Job) error { <-gate; return nil })
		if !p.job("Launch the sibling", sib, err) {
			return nil
		}
		c, err := j.Launch(func(c *kc.Job) error {
			err := c.Shield(func() error {
				p.check(c.Cancel(errCause), "Cancel inside Shield: got false; want true")
				before := rt.Stats().WaitersRegistered
				go func() {
					p.waitUntil("the Join inside Shield to register", func() bool { return rt.Stats().WaitersRegistered > before })
					close(gate)
				}()
				return sib.Join(c)
			})
			p.noErr("Join of a sibling inside Shield after Cancel", err)
			return c.Check()
		})
		if !p.job("Launch", c, err) {
			close(gate)
			return nil
		}
		p.is("Join", c.Join(j), kc.ErrCancelled, errCause)
		p.noErr("Join of the sibling", sib.Join(j))
		return nil
	}))
}
