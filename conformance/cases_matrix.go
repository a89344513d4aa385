package conformance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// matrixCases are the thirteen rows of spec 01 §4.18 (row 11 in both orders).
func matrixCases() []Case {
	return []Case{
		mk("ScopeThreeChildren", "01 §4.18 row 1", scopeThreeChildren),
		mk("ChildFailureCancelsSiblings", "01 §4.18 row 2", childFailureCancelsSiblings),
		mk("SupervisorIgnoresChildFailure", "01 §4.18 row 3", supervisorIgnoresChildFailure),
		mk("CancelBeforeChildrenStart", "01 §4.18 row 4", cancelBeforeChildrenStart),
		mk("TimeoutFiresFirst", "01 §4.18 row 5", timeoutFiresFirst),
		mk("DeferredAwaitSuccess", "01 §4.18 row 6", deferredAwaitSuccess),
		mk("DeferredFailure", "01 §4.18 row 7", deferredFailure),
		mk("CancelDuringAwait", "01 §4.18 row 8", cancelDuringAwait),
		mk("NestedScopesInnerFailure", "01 §4.18 row 9", nestedScopesInnerFailure),
		mk("DetachedChildFailure", "01 §4.18 row 10", detachedChildFailure),
		mk("FailureThenCancel", "01 §4.18 row 11, §4.17", failureThenCancel),
		mk("CancelThenFailure", "01 §4.18 row 11, §4.17", cancelThenFailure),
		mk("ThousandSiblingsCancel", "01 §4.18 row 12", thousandSiblingsCancel),
		mk("WaitersStorm", "01 §4.18 row 13", waitersStorm),
	}
}

// A scope with three children completes after all of them, with their values.
func scopeThreeChildren(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var kids [3]*kc.Deferred[int]
		var scope *kc.Job
		err := j.Scope(func(s *kc.Job) error {
			scope = s
			for i := range kids {
				d, err := kc.Async(s, func(c *kc.Job) (int, error) {
					// Not synchronisation: gives a runtime that does not wait
					// for children the chance to return early.
					time.Sleep(time.Millisecond)
					return i + 1, nil
				})
				if !p.noErr("Async", err) {
					return err
				}
				kids[i] = d
			}
			return nil
		})
		p.noErr("Scope", err)
		p.state("scope", scope, kc.Completed)
		sum := 0
		for i, d := range kids {
			if d == nil {
				continue
			}
			// Checked before awaiting: Scope must have waited for them.
			p.state(fmt.Sprintf("child %d when Scope returned", i), d.Job(), kc.Completed)
			v, err := d.Await(j)
			p.noErr("Await", err)
			sum += v
		}
		eq(p, "sum of the children's values", sum, 6)
		return nil
	}))
}

// A failing child fails its non-supervisor parent and cancels its siblings.
func childFailureCancelsSiblings(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var scope, bad *kc.Job
		var sibs []*kc.Job
		err := j.Scope(func(s *kc.Job) error {
			scope = s
			for range 2 {
				c, err := s.Launch(sleeper)
				if !p.job("Launch sibling", c, err) {
					return err
				}
				sibs = append(sibs, c)
			}
			c, err := s.Launch(failer)
			p.job("Launch failing child", c, err)
			bad = c
			return nil
		})
		p.is("Scope", err, errBoom)
		p.state("parent scope", scope, kc.Failed)
		p.is("parent Result", scope.Result(), errBoom)
		p.state("failing child", bad, kc.Failed)
		for i, c := range sibs {
			if p.state(fmt.Sprintf("sibling %d", i), c, kc.Cancelled) {
				p.is(fmt.Sprintf("sibling %d Result", i), c.Result(), kc.ErrCancelled)
			}
		}
		p.check(!j.IsCancelled(), "root: got IsCancelled true after a Scope failure; want the failure returned to it, not propagated")
		return nil
	}))
}

// A supervisor's failing child cancels nothing; the supervisor completes.
func supervisorIgnoresChildFailure(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var scope, bad, good *kc.Job
		err := j.SupervisorScope(func(s *kc.Job) error {
			scope = s
			var err error
			if bad, err = s.Launch(failer); !p.job("Launch failing child", bad, err) {
				return nil
			}
			good, err = s.Launch(func(c *kc.Job) error {
				p.is("sibling's Join of the failing child", bad.Join(c), errBoom)
				p.check(!c.IsCancelled(), "sibling: got IsCancelled true after a supervised failure; want false")
				p.check(!s.IsCancelled(), "supervisor: got IsCancelled true after a child failure; want false")
				return nil
			})
			p.job("Launch sibling", good, err)
			return nil
		})
		p.noErr("SupervisorScope", err)
		p.state("supervisor scope", scope, kc.Completed)
		p.state("failing child", bad, kc.Failed)
		p.state("sibling", good, kc.Completed)
		eq(p, "len(supervisor.Errors())", len(scope.Errors()), 0)

		// The same with a Launch'd supervisor job.
		sup, err := j.Launch(func(s *kc.Job) error {
			c, err := s.Launch(failer)
			p.job("Launch under Supervisor()", c, err)
			p.is("Join of a supervised child", c.Join(s), errBoom)
			return nil
		}, kc.Supervisor())
		if p.job("Launch Supervisor()", sup, err) {
			p.noErr("Join of the supervisor job", sup.Join(j))
			p.state("supervisor job", sup, kc.Completed)
		}
		return nil
	}))
}

// Cancelling a parent right after launching its children cancels all of
// them (whether or not they started) and the parent.
func cancelBeforeChildrenStart(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		n, err := j.Open()
		if !p.job("Open", n, err) {
			return nil
		}
		var kids []*kc.Job
		for range 3 {
			c, err := n.Launch(sleeper)
			if p.job("Launch", c, err) {
				kids = append(kids, c)
			}
		}
		p.check(n.Cancel(errCause), "Cancel: got false; want true")
		err = n.AwaitAll(j)
		p.is("AwaitAll", err, kc.ErrCancelled, errCause)
		p.state("parent", n, kc.Cancelled)
		for i, c := range kids {
			if p.state(fmt.Sprintf("child %d", i), c, kc.Cancelled) {
				p.is(fmt.Sprintf("child %d Result", i), c.Result(), kc.ErrCancelled, errCause)
			}
		}
		return nil
	}))
}

// A timeout that fires first cancels the scope with ErrTimeout; WithTimeout
// returns an error that matches ErrTimeout and not ErrCancelled.
func timeoutFiresFirst(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		// A slow start (a loaded machine, the race detector) can let the
		// timeout fire before the body launches its child, which Launch
		// then refuses by design: try a longer timeout.
		for d := 10 * time.Millisecond; d <= 640*time.Millisecond; d *= 4 {
			var scope, kid *kc.Job
			late := false
			start := time.Now()
			err := j.WithTimeout(d, func(s *kc.Job) error {
				scope = s
				var err error
				kid, err = s.Launch(sleeper)
				if late = launchTooLate(s, err); !late {
					p.job("Launch", kid, err)
				}
				return s.Sleep(time.Hour)
			})
			if late {
				continue
			}
			p.check(time.Since(start) >= d, "WithTimeout: returned after %v; want at least %v", time.Since(start), d)
			p.is("WithTimeout", err, kc.ErrTimeout)
			p.is("WithTimeout", err, context.DeadlineExceeded)
			p.isNot("WithTimeout", err, kc.ErrCancelled)
			var te *kc.TimeoutError
			if p.check(errors.As(err, &te), "WithTimeout: got error %v; want a *kc.TimeoutError", err) {
				eq(p, "TimeoutError.After", te.After, d)
			}
			p.state("timeout scope", scope, kc.Cancelled)
			p.is("timeout scope Result", scope.Result(), kc.ErrCancelled, kc.ErrTimeout)
			p.state("child of the timeout scope", kid, kc.Cancelled)
			p.check(!j.IsCancelled(), "parent: got IsCancelled true after a child scope's timeout; want false")
			return nil
		}
		p.failf("could not launch a child within a 640ms timeout; want scope bodies to start promptly")
		return nil
	}))
}
