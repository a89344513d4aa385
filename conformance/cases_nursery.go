package conformance

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// nurseryCases are spec 04's test scenarios (§10) and checklist (§9), on
// explicit nurseries: Open, Launch, Close, AwaitAll, TryResult.
func nurseryCases() []Case {
	return []Case{
		mk("NurseryBasicCompletion", "04 §10.1", nurseryBasicCompletion),
		mk("NurseryChildError", "04 §10.2", nurseryChildError),
		mk("NurseryExplicitCancel", "04 §10.3", nurseryExplicitCancel),
		mk("NurseryNestedCancel", "04 §10.4, §6.2", nurseryNestedCancel),
		mk("NurseryLIFOCleanup", "04 §10.5, §6.3", nurseryLIFOCleanup),
		mk("NurseryDeepNestedCancel", "04 §9 nested nursery cancellation", nurseryDeepNestedCancel),
		mk("NurseryConcurrentCompletion", "04 §9 concurrent completion", nurseryConcurrentCompletion),
		mk("NurseryErrorThenCancel", "04 §4.4 row 1", nurseryErrorThenCancel),
		mk("NurseryCancelThenError", "04 §4.4 row 2", nurseryCancelThenError),
		mk("NurseryCancelCleanExit", "04 §4.4 row 3", nurseryCancelCleanExit),
	}
}

// yielder loops on Yield until cancelled (spec 04's "while true { yield() }").
func yielder(j *kc.Job) error {
	for {
		if err := j.Yield(); err != nil {
			return err
		}
	}
}

// withNursery runs f on a nursery opened inside a SupervisorScope of a root
// job, so that the nursery's failure is f's to check and fails nothing else.
func withNursery(rt *kc.Runtime, p *probe, f func(w, n *kc.Job)) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(sup *kc.Job) error {
			n, err := sup.Open()
			if p.job("Open", n, err) {
				f(sup, n)
			}
			return nil
		})
	}))
}

func nurseryBasicCompletion(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		eq(p, "new nursery state", n.State(), kc.Active)
		_, done := n.TryResult()
		p.check(!done, "TryResult before AwaitAll: got done; want pending")
		d1, err1 := kc.Async(n, func(*kc.Job) (int, error) { return 1, nil })
		d2, err2 := kc.Async(n, func(*kc.Job) (int, error) { return 2, nil })
		if !p.noErr("spawn 1", err1) || !p.noErr("spawn 2", err2) {
			return
		}
		p.noErr("AwaitAll", n.AwaitAll(w))
		p.state("nursery", n, kc.Completed)
		err, done := n.TryResult()
		p.check(done && err == nil, "TryResult: got (%v, %v); want (nil, true)", err, done)
		v1, _ := d1.Await(w)
		v2, _ := d2.Await(w)
		eq(p, "child values", [2]int{v1, v2}, [2]int{1, 2})
	})
}

func nurseryChildError(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		ok, err1 := n.Launch(nop)
		bad, err2 := n.Launch(failer)
		if !p.job("spawn 1", ok, err1) || !p.job("spawn 2", bad, err2) {
			return
		}
		p.is("AwaitAll", n.AwaitAll(w), errBoom)
		p.state("nursery", n, kc.Failed)
		err, done := n.TryResult()
		p.check(done, "TryResult: got pending; want done")
		p.is("TryResult", err, errBoom)
		p.state("failing child", bad, kc.Failed)
	})
}

func nurseryExplicitCancel(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		c, err := n.Launch(yielder)
		if !p.job("spawn", c, err) {
			return
		}
		p.check(n.Cancel(nil), "Cancel: got false; want true")
		p.is("AwaitAll", n.AwaitAll(w), kc.ErrCancelled)
		p.state("nursery", n, kc.Cancelled)
		p.state("child", c, kc.Cancelled)
		err, done := n.TryResult()
		p.check(done, "TryResult: got pending; want done")
		p.is("TryResult", err, kc.ErrCancelled)
	})
}

func nurseryNestedCancel(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, outer *kc.Job) {
		var inner, leaf *kc.Job
		started := make(chan struct{})
		a, err := outer.Launch(func(a *kc.Job) error {
			var err error
			if inner, err = a.Open(); !p.job("inner Open", inner, err) {
				close(started)
				return err
			}
			leaf, err = inner.Launch(yielder)
			p.job("inner spawn", leaf, err)
			close(started)
			return inner.AwaitAll(a)
		})
		if !p.job("outer spawn", a, err) {
			return
		}
		<-started
		p.check(outer.Cancel(nil), "Cancel: got false; want true")
		p.is("outer AwaitAll", outer.AwaitAll(w), kc.ErrCancelled)
		p.state("outer nursery", outer, kc.Cancelled)
		p.state("task_a", a, kc.Cancelled)
		p.state("inner nursery", inner, kc.Cancelled)
		p.state("inner child", leaf, kc.Cancelled)
	})
}

// Spec 04 §10.5: inner nurseries close before outer ones; deferred cleanups
// run in LIFO order after the work they guard.
func nurseryLIFOCleanup(rt *kc.Runtime, p *probe) {
	var mu sync.Mutex
	var log []string
	logf := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	var inner, outer *kc.Job
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		defer logf("outer cleanup")
		var err error
		if outer, err = j.Open(); !p.job("outer Open", outer, err) {
			return nil
		}
		_, err = outer.Launch(func(a *kc.Job) error {
			defer logf("inner cleanup")
			var err error
			if inner, err = a.Open(); !p.job("inner Open", inner, err) {
				return err
			}
			if _, err := inner.Launch(func(*kc.Job) error { logf("inner child"); return nil }); !p.noErr("inner spawn", err) {
				return err
			}
			err = inner.AwaitAll(a)
			p.terminal("inner nursery at \"inner done\"", inner)
			logf("inner done")
			return err
		})
		p.noErr("outer spawn", err)
		err = outer.AwaitAll(j)
		p.terminal("outer nursery before \"outer cleanup\"", outer)
		return err
	}))
	want := []string{"inner child", "inner done", "inner cleanup", "outer cleanup"}
	mu.Lock()
	defer mu.Unlock()
	p.check(slices.Equal(log, want), "log: got %q; want %q", log, want)
	p.state("inner nursery", inner, kc.Completed)
	p.state("outer nursery", outer, kc.Completed)
}

// Cancelling the outermost of three nested nurseries reaches every leaf.
func nurseryDeepNestedCancel(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, top *kc.Job) {
		const depth, fan = 3, 3
		var mu sync.Mutex
		var all []*kc.Job // every nursery, task and leaf below top
		add := func(j *kc.Job) { mu.Lock(); all = append(all, j); mu.Unlock() }
		var wg sync.WaitGroup // every leaf is sleeping
		var grow func(n *kc.Job, level int)
		grow = func(n *kc.Job, level int) {
			for range fan {
				if level == depth {
					wg.Add(1)
					leaf, err := n.Launch(func(c *kc.Job) error { wg.Done(); return c.Sleep(time.Hour) })
					if !p.job("leaf spawn", leaf, err) {
						wg.Done()
						continue
					}
					add(leaf)
					continue
				}
				wg.Add(1)
				t, err := n.Launch(func(t *kc.Job) error {
					inner, err := t.Open()
					if !p.job("Open", inner, err) {
						wg.Done()
						return err
					}
					add(inner)
					grow(inner, level+1)
					wg.Done()
					return inner.AwaitAll(t)
				})
				if !p.job("spawn", t, err) {
					wg.Done()
					continue
				}
				add(t)
			}
		}
		grow(top, 1)
		wg.Wait()
		p.check(top.Cancel(errCause), "Cancel: got false; want true")
		p.is("AwaitAll", top.AwaitAll(w), kc.ErrCancelled, errCause)
		p.state("top nursery", top, kc.Cancelled)
		mu.Lock()
		defer mu.Unlock()
		eq(p, "jobs in the tree", len(all), 3+3+9+9+27) // tasks and nurseries at levels 1 and 2, leaves
		bad := 0
		for _, j := range all {
			if j.State() != kc.Cancelled {
				bad++
			}
		}
		p.check(bad == 0, "descendants: got %d of %d not Cancelled; want all Cancelled", bad, len(all))
	})
}

// Many children finishing at once: one release wakes them all, each
// completion is counted once, and the nursery completes after the last.
func nurseryConcurrentCompletion(rt *kc.Runtime, p *probe) {
	const n = 200
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		before := rt.Stats()
		gate, release, ok := newGate(p, j)
		if !ok {
			return nil
		}
		nur, err := j.Open()
		if !p.job("Open", nur, err) {
			release()
			return nil
		}
		for range n {
			if _, err := nur.Launch(func(c *kc.Job) error { return gate.Join(c) }); !p.noErr("spawn", err) {
				break
			}
		}
		nur.Close()
		eq(p, "closed nursery with children", nur.State(), kc.Closing)
		release()
		p.noErr("AwaitAll", nur.AwaitAll(j))
		p.state("nursery", nur, kc.Completed)
		p.noErr("gate Join", gate.Join(j))
		d := statsDelta(before, rt.Stats())
		p.stats("Stats (children, nursery, gate)", d, n+2, 0, 0, n+2, 0)
		return nil
	}))
}

// newGate returns a job that Join blocks on until release is called: a
// closed nursery held open by a lease. It is a child of j.
func newGate(p *probe, j *kc.Job) (gate *kc.Job, release func(), ok bool) {
	gate, err := j.Open()
	if !p.job("gate Open", gate, err) {
		return nil, nil, false
	}
	release, err = gate.Lease()
	if !p.noErr("gate Lease", err) {
		return nil, nil, false
	}
	gate.Close()
	return gate, release, true
}

// Spec 04 §4.4: child errors, then cancel -> child_failed.
func nurseryErrorThenCancel(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		release, err := n.Lease()
		if !p.noErr("Lease", err) {
			return
		}
		bad, err := n.Launch(failer)
		if p.job("spawn", bad, err) {
			p.is("Join of the failing child", bad.Join(w), errBoom)
		}
		p.waitUntil("the nursery to record the failure", func() bool { return len(n.Errors()) > 0 })
		n.Cancel(errCause)
		release()
		p.is("AwaitAll", n.AwaitAll(w), errBoom)
		p.state("nursery", n, kc.Failed)
	})
}

// Spec 04 §4.4: cancel, then a child errors -> child_failed.
func nurseryCancelThenError(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		var kids []*kc.Job
		var started sync.WaitGroup // a child that never started could not fail
		for i := range 3 {
			started.Add(1)
			c, err := n.Launch(func(c *kc.Job) error {
				started.Done()
				err := c.Sleep(time.Hour)
				if i == 1 {
					return fmt.Errorf("child %d after cancel: %w", i, errBoom)
				}
				return err
			})
			if !p.job("spawn", c, err) {
				started.Done()
				continue
			}
			kids = append(kids, c)
		}
		started.Wait()
		p.check(n.Cancel(nil), "Cancel: got false; want true")
		err := n.AwaitAll(w)
		p.is("AwaitAll", err, errBoom)
		p.isNot("AwaitAll", err, kc.ErrCancelled)
		p.state("nursery", n, kc.Failed)
		if len(kids) == 3 {
			p.state("failing child", kids[1], kc.Failed)
			p.state("clean child", kids[0], kc.Cancelled)
		}
	})
}

// Spec 04 §4.4: cancel, all children exit cleanly -> cancelled.
func nurseryCancelCleanExit(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		var kids []*kc.Job
		for range 3 {
			c, err := n.Launch(func(c *kc.Job) error { <-c.Done(); return nil })
			if p.job("spawn", c, err) {
				kids = append(kids, c)
			}
		}
		p.check(n.Cancel(nil), "Cancel: got false; want true")
		p.is("AwaitAll", n.AwaitAll(w), kc.ErrCancelled)
		p.state("nursery", n, kc.Cancelled)
		for i, c := range kids {
			p.state(fmt.Sprintf("child %d (returned nil after cancel)", i), c, kc.Cancelled)
		}
	})
}
