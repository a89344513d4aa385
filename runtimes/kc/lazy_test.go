package kc_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestLazyCancelSeenByRunningChild guards the lazy path of a parent's
// cancellation: children that registered nothing (so are not on the
// parent's child list) and only busy-poll IsCancelled must see the cancel
// through the parent's down flag; State must report Cancelling, Check must
// return ErrCancelled wrapping the parent's cause, Err and Done (in either
// order) must agree, and each child must end Cancelled, counted once.
func TestLazyCancelSeenByRunningChild(t *testing.T) {
	testutil.NoLeak(t)
	rt := kc.New(goroutine.New())
	cause := errors.New("parent cancelled")
	type seen struct {
		before   kc.State // State once IsCancelled was true, before any Err or Done
		check    error
		err      error
		doneShut bool
	}
	modes := []string{"poll", "done-first", "err-first"}
	obs := make([]seen, len(modes))
	kids := make([]*kc.Job, len(modes))
	var p *kc.Job
	testutil.Watchdog(t, 10*time.Second, func() {
		err := rt.Run(context.Background(), func(root *kc.Job) error {
			var started sync.WaitGroup
			ready := make(chan struct{})
			var err error
			p, err = root.Launch(func(p *kc.Job) error {
				defer close(ready)
				for i, mode := range modes {
					started.Add(1)
					c, err := p.Launch(func(c *kc.Job) error {
						started.Done()
						for !c.IsCancelled() {
							runtime.Gosched()
						}
						o := &obs[i]
						o.before = c.State()
						o.check = c.Check()
						switch mode {
						case "done-first":
							o.doneShut = isClosed(c.Done())
							o.err = c.Err()
						case "err-first":
							o.err = c.Err()
							o.doneShut = isClosed(c.Done())
						}
						return nil // without looking at Check: the end of the body must take the cancel
					})
					if err != nil {
						return err
					}
					kids[i] = c
				}
				return nil
			})
			if err != nil {
				return err
			}
			<-ready
			started.Wait()
			if !p.Cancel(cause) {
				t.Error("Cancel(p) = false; want true")
			}
			return nil
		})
		if err != nil {
			t.Errorf("Run = %v; want nil (a cancelled child is no failure)", err)
		}
	})
	for i, mode := range modes {
		o := obs[i]
		if o.before != kc.Cancelling {
			t.Errorf("%s: State while the body ran = %v; want Cancelling", mode, o.before)
		}
		if !errors.Is(o.check, kc.ErrCancelled) || !errors.Is(o.check, cause) {
			t.Errorf("%s: Check = %v; want ErrCancelled wrapping the parent's cause", mode, o.check)
		}
		if mode != "poll" {
			if !o.doneShut {
				t.Errorf("%s: Done not closed once IsCancelled was true", mode)
			}
			if !errors.Is(o.err, kc.ErrCancelled) || !errors.Is(o.err, cause) {
				t.Errorf("%s: Err = %v; want ErrCancelled wrapping the parent's cause", mode, o.err)
			}
		}
		wantCancelledBy(t, mode, kids[i], cause)
		if !isClosed(kids[i].Done()) || kids[i].Err() == nil {
			t.Errorf("%s: after the end, Done open or Err nil", mode)
		}
	}
	wantCancelledBy(t, "parent", p, cause)
	rt.Close()
	if s := checkTotals(t, rt, true); s.CancellationsRequested != 4 {
		t.Errorf("CancellationsRequested = %d; want 4 (the parent and its 3 children, once each)", s.CancellationsRequested)
	}
}

// TestLazyCancelAtBodyEnd guards the end-of-body check of an unlisted child:
// one blocked outside the runtime's sight (a Go channel) while its parent is
// cancelled, that then returns nil without checking, ends Cancelled with
// the parent's cause; one that launches after the cancel is refused with
// ErrCancelled and runs nothing; one that finished before the cancel stays
// Completed, with IsCancelled false.
func TestLazyCancelAtBodyEnd(t *testing.T) {
	testutil.NoLeak(t)
	rt := kc.New(goroutine.New())
	cause := errors.New("parent cancelled")
	proceed := make(chan struct{})
	var early, blocked, launcher, p *kc.Job
	var launchErr, asyncErr error
	var ran atomic.Bool
	testutil.Watchdog(t, 10*time.Second, func() {
		err := rt.Run(context.Background(), func(root *kc.Job) error {
			var started sync.WaitGroup
			started.Add(2)
			ready := make(chan struct{})
			p, _ = root.Launch(func(p *kc.Job) error {
				defer close(ready)
				early, _ = p.Launch(func(*kc.Job) error { return nil })
				blocked, _ = p.Launch(func(*kc.Job) error { started.Done(); <-proceed; return nil })
				launcher, _ = p.Launch(func(c *kc.Job) error {
					started.Done()
					<-proceed
					_, launchErr = c.Launch(func(*kc.Job) error { ran.Store(true); return nil })
					_, asyncErr = kc.Async(c, func(*kc.Job) (int, error) { ran.Store(true); return 1, nil })
					return nil
				})
				return nil
			})
			<-ready
			started.Wait()
			if err := early.Join(nil); err != nil {
				t.Errorf("early.Join = %v", err)
			}
			p.Cancel(cause)
			if st := early.State(); st != kc.Completed || early.IsCancelled() || early.Result() != nil {
				t.Errorf("child finished before the cancel: State %v, IsCancelled %v, Result %v; want Completed, false, nil",
					st, early.IsCancelled(), early.Result())
			}
			if st := blocked.State(); st != kc.Cancelling {
				t.Errorf("blocked child after the parent's cancel: State %v; want Cancelling", st)
			}
			close(proceed)
			return nil
		})
		if err != nil {
			t.Errorf("Run = %v; want nil", err)
		}
	})
	wantCancelledBy(t, "blocked child", blocked, cause)
	wantCancelledBy(t, "launching child", launcher, cause)
	wantCancelledBy(t, "parent", p, cause)
	if !errors.Is(launchErr, kc.ErrCancelled) || !errors.Is(asyncErr, kc.ErrCancelled) || ran.Load() {
		t.Errorf("Launch, Async from a lazily cancelled child: %v, %v, a body ran: %v; want ErrCancelled twice and no body",
			launchErr, asyncErr, ran.Load())
	}
	if early.State() != kc.Completed || early.IsCancelled() {
		t.Errorf("early child changed after the cancel: %v, IsCancelled %v", early.State(), early.IsCancelled())
	}
	rt.Close()
	s := checkTotals(t, rt, true)
	if s.JobsCreated != 5 || s.CancellationsRequested != 3 || s.JobsCompleted != 2 {
		t.Errorf("Stats %+v; want 5 created (root, parent, 3 children), 3 cancellations (parent, blocked, launcher), 2 completed", s)
	}
}

// TestLazyCancelUnstartedChild guards the start-of-body check: a child and
// a deferred spawned but not started when their nursery is cancelled report
// Cancelling and IsCancelled at once, never run their bodies, and end
// Cancelled with the cause, which Await and AwaitAll return.
func TestLazyCancelUnstartedChild(t *testing.T) {
	testutil.NoLeak(t)
	ex := &gateExecutor{}
	rt := kc.New(ex)
	cause := errors.New("nursery cancelled")
	var ran atomic.Int32
	var c *kc.Job
	var d *kc.Deferred[int]
	testutil.Watchdog(t, 10*time.Second, func() {
		err := rt.Run(context.Background(), func(root *kc.Job) error {
			n, err := root.Open()
			if err != nil {
				return err
			}
			ex.pause()
			c, _ = n.Launch(func(*kc.Job) error { ran.Add(1); return nil })
			d, _ = kc.Async(n, func(*kc.Job) (int, error) { ran.Add(1); return 7, nil })
			n.Cancel(cause)
			if st := c.State(); st != kc.Cancelling || !c.IsCancelled() || !errors.Is(c.Check(), cause) {
				t.Errorf("unstarted child: State %v, IsCancelled %v, Check %v; want Cancelling, true, the cause",
					st, c.IsCancelled(), c.Check())
			}
			if st := d.State(); st != kc.Cancelling {
				t.Errorf("unstarted deferred: State %v; want Cancelling", st)
			}
			ex.resume()
			if err := n.AwaitAll(root); !errors.Is(err, kc.ErrCancelled) || !errors.Is(err, cause) {
				t.Errorf("AwaitAll = %v; want ErrCancelled wrapping the cause", err)
			}
			if v, err := d.Await(root); v != 0 || !errors.Is(err, cause) {
				t.Errorf("Await = %v, %v; want 0 and the cause", v, err)
			}
			return nil
		})
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	if n := ran.Load(); n != 0 {
		t.Errorf("%d bodies ran after their parent's cancel; want none", n)
	}
	wantCancelledBy(t, "child", c, cause)
	wantCancelledBy(t, "deferred", d.Job(), cause)
	rt.Close()
	if s := checkTotals(t, rt, true); s.CancellationsRequested != 3 {
		t.Errorf("CancellationsRequested = %d; want 3 (nursery, child, deferred)", s.CancellationsRequested)
	}
}
