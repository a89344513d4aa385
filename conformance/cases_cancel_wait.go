package conformance

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// cancelWaitCases check corners of cancellation causes, OnCancel, waits
// and checkpoints that no other case reaches: each fails against a core
// with a plausible bug in one of them (the two race hunts,
// JoinByWaiterCancelledAsItStarts and OnCancelStopDuringWalk, need two or
// more cores, and AwaitEndsDuringWaitersCancelWalk a build without the
// race detector, to catch theirs).
func cancelWaitCases() []Case {
	return []Case{
		mk("NilCauseKeepsTimeout", "01 4.17; DESIGN Errors: an explicit cause replaces a timeout", nilCauseKeepsTimeout),
		mk("JoinByWaiterCancelledAsItStarts", "DESIGN Await: a pending wait returns as soon as the waiter is cancelled", joinByWaiterCancelledAsItStarts),
		mk("LeaseHoldsCancelledLeaf", "02 PromiseChildLease; DESIGN Lease: no terminal state while a lease is held", leaseHoldsCancelledLeaf),
		mk("OnCancelStopDuringWalk", "02 HeapCancelNode disarm: one CAS decides", onCancelStopDuringWalk),
		mk("DetachedWaitOnLauncherWaits", "DESIGN Waits that can never end; Detached", detachedWaitOnLauncherWaits),
		mk("AwaitEndsDuringWaitersCancelWalk", "DESIGN Await: every waiter is woken exactly once; 02 HeapCancelNode", awaitEndsDuringWaitersCancelWalk),
		mk("ShieldAfterUnseenParentCancel", "02 ignore_cancellation: cancel-before-ignore", shieldAfterUnseenParentCancel),
		mk("CheckBesideCauseReplacingTimeout", "01 4.17; DESIGN Errors: an explicit cause replaces a timeout", checkBesideCauseReplacingTimeout),
		mk("DoneClosedAtEndAfterWait", "DESIGN Context: Done is closed when the job is terminal", doneClosedAtEndAfterWait),
		mk("CancelSleepingLeafWakesJoins", "DESIGN Await: every waiter is woken exactly once", cancelSleepingLeafWakesJoins),
		mk("ShieldedLeafJoinIgnoresCancel", "02 ignore_cancellation: ignore-before-cancel", shieldedLeafJoinIgnoresCancel),
		mk("TimeoutAfterUnseenParentCancel", "01 4.17; DESIGN Errors: the first Cancel wins", timeoutAfterUnseenParentCancel),
	}
}

// A Cancel with a nil cause, after a timeout has cancelled a scope, keeps
// the timeout as the scope's cause: only an explicit non-nil cause replaces
// a timeout's (a nil one says nothing that could replace it). The Cancel
// returns false (the scope is already cancelling) and the scope reports
// ErrTimeout.
func nilCauseKeepsTimeout(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		err := j.WithTimeout(5*time.Millisecond, func(s *kc.Job) error {
			p.is("Sleep until the timeout", s.Sleep(time.Hour), kc.ErrCancelled, kc.ErrTimeout)
			p.check(!s.Cancel(nil), "Cancel(nil) after the timeout: got true; want false (already cancelling)")
			p.is("Check after Cancel(nil)", s.Check(), kc.ErrCancelled, kc.ErrTimeout)
			return nil
		})
		p.is("WithTimeout after Cancel(nil)", err, kc.ErrTimeout)
		return nil
	}))
}

// A WithTimeout scope whose parent is cancelled while the scope's body
// does not look (it blocks on a Go channel, so the parent's walk may not
// visit the scope) and whose timer fires after that, ends with the
// parent's cause: that cancellation came first, and a timeout replaces no
// cause. WithTimeout then returns the cancellation (matching the parent's
// cause), not ErrTimeout. The case waits past the deadline before it lets
// the body return, so that the timer fires first in nearly every round (a
// runtime that lets the timeout win fails in those rounds); a late timer
// changes nothing for a correct runtime.
func timeoutAfterUnseenParentCancel(rt *kc.Runtime, p *probe) {
	const d = 10 * time.Millisecond
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		for range 3 {
			started, gate := make(chan struct{}), make(chan struct{})
			got := make(chan error, 1)
			var deadline time.Time
			c, err := j.Launch(func(c *kc.Job) error {
				got <- c.WithTimeout(d, func(s *kc.Job) error {
					deadline, _ = s.Deadline()
					close(started)
					<-gate // no checkpoint: the parent's cancellation reaches s only when s looks
					return nil
				})
				return nil
			})
			if !p.job("Launch", c, err) {
				return nil
			}
			<-started
			p.check(c.Cancel(errCause), "Cancel of the scope's parent: got false; want true")
			time.Sleep(time.Until(deadline) + 20*time.Millisecond) // the point: let the timer fire into the cancelled parent's scope
			close(gate)
			err = <-got
			if !p.is("WithTimeout whose parent was cancelled before the timer fired", err, kc.ErrCancelled, errCause) ||
				!p.isNot("WithTimeout whose parent was cancelled before the timer fired", err, kc.ErrTimeout) {
				return nil
			}
			p.is("Join of the cancelled parent", c.Join(j), kc.ErrCancelled, errCause)
		}
		return nil
	}))
}

// A Lease taken on a job after it was cancelled (while its body still
// runs, a Lease is allowed) keeps the job from becoming terminal when its
// body then returns the cancellation: the job stays Cancelling until the
// lease is released, and only then ends Cancelled. The job is a plain
// leaf (no children, callbacks or waiters) cancelled in its Sleep, the
// cheapest path a cancellation takes. The case watches the job for 100ms
// after its body returned: a runtime that ends it despite the lease does
// so at once.
func leaseHoldsCancelledLeaf(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		started, gate, returning := make(chan struct{}), make(chan struct{}), make(chan struct{})
		slept := make(chan error, 1)
		c, err := j.Launch(func(c *kc.Job) error {
			close(started)
			err := c.Sleep(time.Hour)
			slept <- err
			<-gate
			close(returning)
			return err
		})
		if !p.job("Launch", c, err) {
			return nil
		}
		<-started // a child cancelled before it starts skips its body
		p.check(c.Cancel(errCause), "Cancel of the sleeping child: got false; want true")
		p.is("the child's Sleep", <-slept, kc.ErrCancelled, errCause)
		release, err := c.Lease()
		close(gate)
		if !p.noErr("Lease on the cancelled child whose body still runs", err) {
			return nil
		}
		<-returning
		watch := time.Now().Add(100 * time.Millisecond)
		for time.Now().Before(watch) && !c.State().Terminal() {
			time.Sleep(time.Millisecond)
		}
		p.state("child whose body returned, with a lease held", c, kc.Cancelling)
		release()
		p.is("Join after the release", c.Join(j), kc.ErrCancelled, errCause)
		p.state("child after the release", c, kc.Cancelled)
		return nil
	}))
}

// A stop that races a cancel walk reports exactly what happened: true and
// the callback never runs, or false and it has run once. The job carries
// a thousand other callbacks registered after the raced one, which a walk
// fires first (newest first), so that the stop often lands after the walk
// has taken the callbacks and before it has reached the raced one: the
// stop then wins, and the walk must leave the callback alone. The stopper
// spins beside the Cancel (it does not yield), so the race is real on a
// machine with two or more cores; on one core the case checks only the
// ordinary orders.
func onCancelStopDuringWalk(rt *kc.Runtime, p *probe) {
	const others = 1000
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		end := time.Now().Add(raceBudget)
		for round := 0; round < 20 || round < 1000 && time.Now().Before(end); round++ {
			c, err := j.Launch(sleeper)
			if !p.job("Launch", c, err) {
				return nil
			}
			var calls atomic.Int32
			stop := c.OnCancel(func() { calls.Add(1) })
			for range others {
				c.OnCancel(func() {})
			}
			var gate, spinning atomic.Bool
			stopped := make(chan bool, 1)
			go func() {
				spinning.Store(true)
				for !gate.Load() {
				}
				stopped <- stop()
			}()
			for !spinning.Load() {
				runtime.Gosched()
			}
			gate.Store(true)
			c.Cancel(nil)
			s := <-stopped
			p.is("Join of the cancelled job", c.Join(j), kc.ErrCancelled)
			if !stopAgrees(p, fmt.Sprintf("round %d: stop racing the cancel walk", round), s, calls.Load()) {
				return nil
			}
		}
		return nil
	}))
}

// Shield in a job whose nursery was cancelled while the job looked at
// nothing (it blocked on a Go channel, so the nursery's cancel walk may
// not have visited it) returns the cancellation, with the nursery's cause,
// without running its body: the cancellation came before the Shield, as
// in ShieldCancelBeforeEnter, whether or not the walk reached the job.
func shieldAfterUnseenParentCancel(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		var ran atomic.Bool
		got := make(chan error, 1)
		c, ok := runAfterUnseenCancel(p, n, func(c *kc.Job) error {
			err := c.Shield(func() error { ran.Store(true); return nil })
			got <- err
			return err
		})
		if !ok {
			return
		}
		p.is("Shield in a job whose nursery was cancelled", <-got, kc.ErrCancelled, errCause)
		p.check(!ran.Load(), "Shield in a job whose nursery was cancelled: got its body run; want it skipped")
		p.is("AwaitAll of the cancelled nursery", n.AwaitAll(w), kc.ErrCancelled, errCause)
		p.state("job", c, kc.Cancelled)
	})
}

// Checkpoints of a timed-out scope that run while another goroutine's
// Cancel replaces the timeout's cause each report one of the two causes,
// and the explicit one once that Cancel has returned. Under the race
// detector the case also checks that a checkpoint reads the cause, which
// such a Cancel still changes, only under the job's lock: a runtime that
// reads it lock-free before the cause is final is reported as a data race.
func checkBesideCauseReplacingTimeout(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		err := j.WithTimeout(time.Millisecond, func(s *kc.Job) error {
			p.is("Sleep until the timeout", s.Sleep(time.Hour), kc.ErrCancelled, kc.ErrTimeout)
			done := make(chan bool)
			go func() { done <- s.Cancel(errCause) }()
			for range 1000 {
				err := s.Check()
				if !p.is("Check beside the Cancel", err, kc.ErrCancelled) {
					break
				}
				if !errors.Is(err, kc.ErrTimeout) && !errors.Is(err, errCause) {
					p.failf("Check beside the Cancel: got error %q; want the timeout or the explicit cause", err)
					break
				}
			}
			p.check(!<-done, "Cancel after the timeout: got true; want false (already cancelling)")
			err := s.Check()
			p.is("Check after the Cancel", err, kc.ErrCancelled, errCause)
			p.isNot("Check after the Cancel", err, kc.ErrTimeout)
			return nil
		})
		p.is("WithTimeout, explicit cause after the timeout", err, kc.ErrCancelled, errCause)
		return nil
	}))
}
