package conformance

import (
	"sync"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

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
