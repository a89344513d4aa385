package conformance

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// waitCases check waits whose outcome is decided by the job tree rather
// than by timing (DESIGN "Waits that can never end", "Await").
func waitCases() []Case {
	return []Case{
		mk("WaitOnSelfOrAncestor", "DESIGN Waits that can never end", waitOnSelfOrAncestor),
		mk("AwaitFailingChildAnyTiming", "DESIGN Await: a finished target gives its own outcome", awaitFailingChildAnyTiming),
	}
}

// isCycle checks that err is kc.ErrWaitCycle and matches no other error a
// wait can return.
func (p *probe) isCycle(what string, err error) bool {
	return p.is(what, err, kc.ErrWaitCycle) &&
		p.isNot(what, err, kc.ErrCancelled, kc.ErrClosed, kc.ErrTimeout, context.Canceled, context.DeadlineExceeded)
}

// A Join, Await or AwaitAll whose waiter is the target or an attached
// descendant of it could never return: it returns ErrWaitCycle at once,
// and an AwaitAll refused that way does not close the nursery. A detached
// descendant is not waited for, so its wait is a plain one.
func waitOnSelfOrAncestor(rt *kc.Runtime, p *probe) {
	var det *kc.Job
	var detErr error
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		stop := p.deadman("Join of the root by itself", func() { j.Cancel(nil) })
		p.isCycle("Join of the root by itself", j.Join(j))
		stop()
		err := j.SupervisorScope(func(s *kc.Job) error {
			stop := p.deadman("waits on an ancestor", func() { s.Cancel(nil) })
			defer stop()
			child, err := s.Launch(func(c *kc.Job) error { return s.Join(c) })
			if p.job("Launch", child, err) {
				p.isCycle("Join of its parent by a child", child.Join(s))
			}
			grand, err := s.Launch(func(c *kc.Job) error {
				return c.Scope(func(cs *kc.Job) error { return s.Join(cs) })
			})
			if p.job("Launch", grand, err) {
				p.isCycle("Join of an ancestor from a Scope two levels down", grand.Join(s))
			}
			dch := make(chan *kc.Deferred[int], 1)
			d, err := kc.Async(s, func(c *kc.Job) (int, error) { return (<-dch).Await(c) })
			if p.noErr("Async", err) {
				dch <- d
				_, err := d.Await(s)
				p.isCycle("Await of a deferred by its own job", err)
			}
			n, err := s.Open()
			if !p.job("Open", n, err) {
				return nil
			}
			// The nursery's children return nil, so that the nursery
			// stays Active: a refused AwaitAll does not close it.
			var awaitAllErr, joinErr error
			k, err := n.Launch(func(k *kc.Job) error { awaitAllErr = n.AwaitAll(k); return nil })
			if p.job("Launch into the nursery", k, err) {
				p.noErr("Join of the nursery's child", k.Join(s))
				p.isCycle("AwaitAll of a nursery by its child", awaitAllErr)
				eq(p, "nursery after its child's AwaitAll was refused", n.State(), kc.Active)
			}
			k, err = n.Launch(func(k *kc.Job) error { joinErr = s.Join(k); return nil })
			if p.job("Launch into the nursery", k, err) {
				p.noErr("Join of the nursery's child", k.Join(s))
				p.isCycle("Join of the nursery's parent by the nursery's child", joinErr)
			}
			p.noErr("AwaitAll of the nursery", n.AwaitAll(s))
			det, err = s.Launch(func(c *kc.Job) error { detErr = s.Join(c); return nil }, kc.Detached())
			p.job("Launch Detached()", det, err)
			return nil
		})
		p.noErr("SupervisorScope", err)
		if det != nil {
			stop := p.deadman("Join of a detached child that joins its launcher", func() { det.Cancel(nil) })
			p.noErr("Join of the detached child", det.Join(j))
			stop()
			p.noErr("Join of its launcher by a detached child", detErr)
		}
		return nil
	}))
}

// A job that awaits a failing descendant gets the descendant's failure
// itself, whether the descendant failed before the await began or while it
// was pending, even though the same failure cancels the awaiting job: the
// target's end comes before the cancellation it causes. Each waiting
// variant runs many times with a body that fails at once and one that
// fails after 1 ms, in parallel.
func awaitFailingChildAnyTiming(rt *kc.Runtime, p *probe) {
	const rounds = 50
	// fail returns a body that signals started (if not nil), then fails
	// after delay. A waiter that waits for the signal finds the body
	// running, so it parks instead of running it inline.
	fail := func(delay time.Duration, started *kc.Chan[struct{}]) func(c *kc.Job) (int, error) {
		return func(c *kc.Job) (int, error) {
			if started != nil {
				started.TrySend(struct{}{})
			}
			if delay > 0 {
				c.Sleep(delay) // nothing cancels c before it fails
			}
			return 0, errBoom
		}
	}
	variants := []struct {
		name string
		wait func(s *kc.Job, delay time.Duration) error
	}{
		{"Await of a failing Async child", func(s *kc.Job, delay time.Duration) error {
			started, _ := kc.NewChan[struct{}](1)
			d, err := kc.Async(s, fail(delay, started))
			if err != nil {
				return err
			}
			started.Recv(s) // cancelled only by d's failure, once d has ended
			_, err = d.Await(s)
			return err
		}},
		{"Join of a failing child", func(s *kc.Job, delay time.Duration) error {
			started, _ := kc.NewChan[struct{}](1)
			f := fail(delay, started)
			c, err := s.Launch(func(c *kc.Job) error { _, err := f(c); return err })
			if err != nil {
				return err
			}
			started.Recv(s) // cancelled only by c's failure, once c has ended
			return c.Join(s)
		}},
		{"Await of a failing grandchild", func(s *kc.Job, delay time.Duration) error {
			dch, _ := kc.NewChan[*kc.Deferred[int]](1)
			if _, err := s.Launch(func(mid *kc.Job) error {
				d, err := kc.Async(mid, fail(delay, nil))
				dch.TrySend(d)
				return err
			}); err != nil {
				return err
			}
			d, err := dch.Recv(s)
			if err != nil {
				// s is cancelled only by the failure coming up from the
				// grandchild, once the middle job, which sent the handle,
				// has ended.
				d, err = dch.TryRecv()
			}
			if err != nil || d == nil {
				return fmt.Errorf("handle of the grandchild: got (%v, %v)", d, err)
			}
			_, err = d.Await(s)
			return err
		}},
		{"AwaitAll of a nursery with a failing child", func(s *kc.Job, delay time.Duration) error {
			n, err := s.Open()
			if err != nil {
				return err
			}
			if _, err := kc.Async(n, fail(delay, nil)); err != nil {
				return err
			}
			return n.AwaitAll(s)
		}},
	}
	var mu sync.Mutex
	bad := map[string]int{}
	example := map[string]error{}
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(sup *kc.Job) error {
			for range rounds {
				for _, v := range variants {
					for _, delay := range []time.Duration{0, time.Millisecond} {
						_, err := sup.Launch(func(c *kc.Job) error {
							var got error
							scopeErr := c.Scope(func(s *kc.Job) error { got = v.wait(s, delay); return nil })
							key := fmt.Sprintf("%s (failing after %v)", v.name, delay)
							if !errors.Is(got, errBoom) || errors.Is(got, kc.ErrCancelled) || !errors.Is(scopeErr, errBoom) {
								mu.Lock()
								bad[key]++
								if example[key] == nil {
									example[key] = fmt.Errorf("wait returned %v, Scope returned %v", got, scopeErr)
								}
								mu.Unlock()
							}
							return nil
						})
						if !p.noErr("Launch", err) {
							return nil
						}
					}
				}
			}
			return nil
		})
	}))
	for _, v := range variants {
		for _, delay := range []time.Duration{0, time.Millisecond} {
			key := fmt.Sprintf("%s (failing after %v)", v.name, delay)
			if n := bad[key]; n > 0 {
				p.failf("%s: got %d of %d rounds wrong (e.g. %v); want the child's failure %q itself, not a cancellation",
					key, n, rounds, example[key], errBoom)
			}
		}
	}
}
