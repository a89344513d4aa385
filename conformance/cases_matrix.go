package conformance

import (
	"context"
	"errors"
	"fmt"
	"sync"
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

// A deferred's value is returned by every Await, pending or finished, from a
// job or from a plain goroutine.
func deferredAwaitSuccess(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		gate := make(chan struct{})
		d, err := kc.Async(j, func(*kc.Job) (string, error) { <-gate; return "payload", nil })
		if !p.noErr("Async", err) {
			return nil
		}
		go close(gate)
		v, err := d.Await(j)
		p.noErr("Await", err)
		eq(p, "Await value", v, "payload")
		p.state("deferred", d.Job(), kc.Completed)
		eq(p, "Deferred.State", d.State(), kc.Completed)
		p.noErr("deferred Result", d.Job().Result())
		v, err = d.Await(j)
		p.noErr("second Await", err)
		eq(p, "second Await value", v, "payload")
		ch := make(chan string)
		go func() { v, _ := d.Await(nil); ch <- v }()
		eq(p, "Await(nil) value", <-ch, "payload")
		return nil
	}))
}

// A failed deferred's Await returns the zero value and the failure, and the
// failure fails the deferred's parent although it was awaited.
func deferredFailure(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var d *kc.Deferred[*int]
		err := j.Scope(func(s *kc.Job) error {
			var err error
			d, err = kc.Async(s, func(*kc.Job) (*int, error) { x := 7; return &x, errBoom })
			if !p.noErr("Async", err) {
				return nil
			}
			v, err := d.Await(s)
			p.is("Await", err, errBoom)
			p.check(v == nil, "Await value: got %v; want the zero value (nil)", v)
			return nil
		})
		p.is("Scope (the deferred's parent)", err, errBoom)
		if d != nil {
			p.state("deferred", d.Job(), kc.Failed)
			v, err := d.Await(j)
			p.is("Await after the failure", err, errBoom)
			p.check(v == nil, "Await value after the failure: got %v; want nil", v)
		}
		return nil
	}))
}

// A cancelled waiter's pending Await returns ErrCancelled; the deferred goes on.
func cancelDuringAwait(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		p.awaitRunWaiter(rt)
		gate := make(chan struct{})
		d, err := kc.Async(j, func(*kc.Job) (int, error) { <-gate; return 1, nil })
		if !p.noErr("Async", err) {
			close(gate)
			return nil
		}
		defer close(gate)
		before := rt.Stats().WaitersRegistered
		var awaitErr error
		w, err := j.Launch(func(w *kc.Job) error {
			_, awaitErr = d.Await(w)
			return awaitErr
		})
		if !p.job("Launch waiter", w, err) {
			return nil
		}
		if !p.waitUntil("the waiter's Await to register", func() bool { return rt.Stats().WaitersRegistered > before }) {
			return nil
		}
		p.check(w.Cancel(errCause), "Cancel of the waiter: got false; want true")
		p.is("waiter Join", w.Join(j), kc.ErrCancelled)
		p.is("Await by the cancelled waiter", awaitErr, kc.ErrCancelled, errCause)
		p.state("awaited deferred", d.Job(), kc.Active)
		p.check(!d.Job().IsCancelled(), "awaited deferred: got IsCancelled true; want the deferred left running")
		return nil
	}))
}

// A failure deep in nested jobs fails each ancestor in turn, depth first,
// and cancels the siblings at every level.
func nestedScopesInnerFailure(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var mu sync.Mutex
		var scope, outerSib, a, b, innerSib *kc.Job
		err := j.Scope(func(s *kc.Job) error {
			scope = s
			var err error
			outerSib, err = s.Launch(sleeper)
			p.job("Launch outer sibling", outerSib, err)
			a, err = s.Launch(func(a *kc.Job) error {
				is, err1 := a.Launch(sleeper)
				bb, err2 := a.Launch(failer)
				mu.Lock()
				innerSib, b = is, bb
				mu.Unlock()
				p.job("Launch inner sibling", is, err1)
				p.job("Launch inner failing child", bb, err2)
				return a.Sleep(time.Hour)
			})
			p.job("Launch a", a, err)
			return nil
		})
		p.is("Scope", err, errBoom)
		mu.Lock()
		defer mu.Unlock()
		p.state("inner failing child", b, kc.Failed)
		p.state("inner sibling", innerSib, kc.Cancelled)
		p.state("middle job a", a, kc.Failed)
		p.is("middle job Result", a.Result(), errBoom)
		p.state("outer sibling", outerSib, kc.Cancelled)
		p.state("scope", scope, kc.Failed)
		if errs := scope.Errors(); p.check(len(errs) > 0, "scope Errors: got none; want the inner failure first") {
			p.is("scope Errors()[0]", errs[0], errBoom)
		}
		return nil
	}))
}

// A detached child's failure leaves its parent alone.
func detachedChildFailure(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var scope, det *kc.Job
		err := j.Scope(func(s *kc.Job) error {
			scope = s
			var err error
			det, err = s.Launch(failer, kc.Detached())
			if p.job("Launch Detached()", det, err) {
				p.is("Join of the detached child", det.Join(s), errBoom)
			}
			p.check(!s.IsCancelled(), "parent: got IsCancelled true after its detached child failed; want false")
			return nil
		})
		p.noErr("Scope", err)
		p.state("parent", scope, kc.Completed)
		eq(p, "len(parent.Errors())", len(scope.Errors()), 0)
		p.state("detached child", det, kc.Failed)
		return nil
	}))
}

// A child fails, then the parent is cancelled from outside: Failed.
func failureThenCancel(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(sup *kc.Job) error {
			n, err := sup.Open()
			if !p.job("Open", n, err) {
				return nil
			}
			release, err := n.Lease() // keeps n from finishing between the two events
			if !p.noErr("Lease", err) {
				return nil
			}
			bad, err := n.Launch(failer)
			if p.job("Launch failing child", bad, err) {
				p.is("Join of the failing child", bad.Join(sup), errBoom)
			}
			p.waitUntil("the parent to record the failure", func() bool { return len(n.Errors()) > 0 })
			p.state("parent after the failure", n, kc.Cancelling)
			p.check(!n.Cancel(errCause), "external Cancel after the failure: got true; want false (already cancelling)")
			release()
			err = n.AwaitAll(sup)
			p.is("AwaitAll", err, errBoom)
			p.isNot("AwaitAll", err, kc.ErrCancelled, errCause)
			p.state("parent", n, kc.Failed)
			return nil
		})
	}))
}

// The parent is cancelled from outside, then a child fails: Failed.
func cancelThenFailure(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(sup *kc.Job) error {
			n, err := sup.Open()
			if !p.job("Open", n, err) {
				return nil
			}
			started := make(chan struct{})
			c, err := n.Launch(func(c *kc.Job) error {
				close(started)
				<-c.Done()
				return errBoom
			})
			if !p.job("Launch", c, err) {
				return nil
			}
			<-started
			p.check(n.Cancel(errCause), "Cancel: got false; want true")
			err = n.AwaitAll(sup)
			p.is("AwaitAll", err, errBoom)
			p.isNot("AwaitAll", err, kc.ErrCancelled)
			p.state("parent", n, kc.Failed)
			p.state("child", c, kc.Failed)
			return nil
		})
	}))
}

// Cancelling 1000 sleeping siblings cancels each one; the counters are exact.
func thousandSiblingsCancel(rt *kc.Runtime, p *probe) {
	const n = 1000
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		p.awaitRunWaiter(rt)
		before := rt.Stats()
		nur, err := j.Open()
		if !p.job("Open", nur, err) {
			return nil
		}
		kids := make([]*kc.Job, 0, n)
		for range n {
			c, err := nur.Launch(sleeper)
			if !p.job("Launch", c, err) {
				break
			}
			kids = append(kids, c)
		}
		p.check(nur.Cancel(nil), "Cancel: got false; want true")
		p.is("AwaitAll", nur.AwaitAll(j), kc.ErrCancelled)
		d := statsDelta(before, rt.Stats())
		p.state("parent", nur, kc.Cancelled)
		p.allIn("children", kids, kc.Cancelled)
		p.stats("Stats", d, n+1, n+1, 0, 0, n+1)
		eq(p, "WaitersWoken delta", d.WaitersWoken, d.WaitersRegistered)
		return nil
	}))
}

// 32 awaits of one pending deferred (16 from jobs, 16 from goroutines) are all
// woken, exactly once each, when it completes.
func waitersStorm(rt *kc.Runtime, p *probe) {
	const n = 32
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		p.awaitRunWaiter(rt)
		before := rt.Stats()
		gate := make(chan struct{})
		d, err := kc.Async(j, func(*kc.Job) (int, error) { <-gate; return 42, nil })
		if !p.noErr("Async", err) {
			return nil
		}
		var wg sync.WaitGroup
		results := make(chan int, n)
		await := func(w *kc.Job) {
			defer wg.Done()
			v, err := d.Await(w)
			p.noErr("Await", err)
			results <- v
		}
		wg.Add(n)
		for i := range n {
			if i%2 == 0 {
				go await(nil)
				continue
			}
			if _, err := j.Launch(func(w *kc.Job) error { await(w); return nil }); !p.noErr("Launch waiter", err) {
				wg.Done()
			}
		}
		registered := p.waitUntil("32 waiters to register", func() bool {
			return rt.Stats().WaitersRegistered-before.WaitersRegistered >= n
		})
		eq(p, "Awaits returned before the deferred finished", len(results), 0)
		close(gate)
		wg.Wait()
		close(results)
		got := 0
		for v := range results {
			eq(p, "Await value", v, 42)
			got++
		}
		eq(p, "Awaits returned", got, n)
		if registered {
			delta := statsDelta(before, rt.Stats())
			eq(p, "WaitersRegistered delta", delta.WaitersRegistered, uint64(n))
			eq(p, "WaitersWoken delta", delta.WaitersWoken, uint64(n))
		}
		return nil
	}))
}
