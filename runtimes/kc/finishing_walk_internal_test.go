package kc

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
)

// finishingPlayed launches into p a job whose body takes a Lease and
// returns; once the body has ended, the test drops the lease's hold
// itself (as the release does, by the Add of releaseHolds) and so becomes
// the job's finisher, which it runs later by calling finish, as
// releaseHolds would. This fixes the interleaving "the last hold is gone,
// the finisher has not yet taken j.mu", which a real release goes through
// between its Add and its finish.
func finishingPlayed(p *Job, body func(c *Job)) (*Job, error) {
	ready := make(chan struct{})
	c, err := p.Launch(func(c *Job) error {
		if _, err := c.Lease(); err != nil {
			return err
		}
		if body != nil {
			body(c)
		}
		close(ready)
		return nil
	})
	if err != nil {
		return nil, err
	}
	<-ready
	for c.state.Load()&bitBodyDone == 0 {
		runtime.Gosched()
	}
	if s := c.state.Add(^(oneHold - 1)); !finishing(s) {
		return nil, fmt.Errorf("job not finishing after the hold was dropped: %#x", s)
	}
	return c, nil
}

// cancelMeetingFinisher plays the other side of finishingPlayed: it
// cancels c from another goroutine and, once that walk has marked itself
// running (bitWalking), runs c's finisher, which must leave the finish to
// the walk. It waits for c's end and reports what Cancel returned.
func cancelMeetingFinisher(c *Job, cause error) bool {
	moved := make(chan bool, 1)
	go func() { moved <- c.Cancel(cause) }()
	for c.state.Load()&bitWalking == 0 {
		runtime.Gosched()
	}
	c.finish(nil) // the finisher (the Lease release): finds the walk running, leaves
	m := <-moved
	c.Join(nil)
	return m
}

// awaitFinishDeferred is for a callback of cancelMeetingFinisher's walk:
// it waits (5 s at most) until the finisher has left the finish to the
// walk, and reports whether it did.
func awaitFinishDeferred(c *Job) bool {
	for start := time.Now(); time.Since(start) < 5*time.Second; runtime.Gosched() {
		if c.state.Load()&bitFinishDeferred != 0 {
			return true
		}
	}
	return false
}

// TestOnCancelAfterCancelOfFinishingJob: Cancel returns true on a
// finishing job that has no OnCancel callback yet (walkFinishingLocked
// finds no hooks and leaves bitWalked clear); an OnCancel registered after
// that Cancel returned must run (at once, since the job is already
// cancelled, or at the latest before the job is terminal), not be linked
// and then dropped by the finisher.
func TestOnCancelAfterCancelOfFinishingJob(t *testing.T) {
	rt := New(goExecutor())
	defer rt.Close()
	cause := errors.New("cause")
	err := <-runBody(rt, func(root *Job) error {
		c, err := finishingPlayed(root, nil)
		if err != nil {
			return err
		}
		if !c.Cancel(cause) {
			return errors.New("Cancel of the finishing job returned false")
		}
		var ran atomic.Bool
		c.OnCancel(func() { ran.Store(true) })
		ranAtOnce := ran.Load()
		c.finish(nil) // the finisher (the Lease release) goes on
		c.Join(nil)
		var errs []error
		if st := c.State(); st != Cancelled {
			errs = append(errs, fmt.Errorf("job ended %v; want Cancelled", st))
		}
		if !ran.Load() {
			errs = append(errs, errors.New("OnCancel registered after Cancel returned true never ran; the job ended Cancelled"))
		} else if !ranAtOnce {
			errs = append(errs, errors.New("OnCancel on an already cancelled job did not run at once"))
		}
		return errors.Join(errs...)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDoneAfterCancelOfFinishingJob: once Cancel has returned true,
// Done is closed and Err is not nil (DESIGN Context: Done is closed when
// the job enters Cancelling), also for a finishing job with no OnCancel
// callback, before its finisher has ended it.
func TestDoneAfterCancelOfFinishingJob(t *testing.T) {
	rt := New(goExecutor())
	defer rt.Close()
	cause := errors.New("cause")
	err := <-runBody(rt, func(root *Job) error {
		var done <-chan struct{}
		c, err := finishingPlayed(root, func(c *Job) { done = c.Done() })
		if err != nil {
			return err
		}
		if !c.Cancel(cause) {
			return errors.New("Cancel of the finishing job returned false")
		}
		var errs []error
		select {
		case <-done:
		default:
			errs = append(errs, errors.New("Done (made before the Cancel) still open after Cancel returned true"))
		}
		select {
		case <-c.Done():
		default:
			errs = append(errs, errors.New("Done (made after the Cancel) still open after Cancel returned true"))
		}
		if c.Err() == nil {
			errs = append(errs, errors.New("Err() == nil after Cancel returned true"))
		}
		c.finish(nil)
		c.Join(nil)
		if st := c.State(); st != Cancelled {
			errs = append(errs, fmt.Errorf("job ended %v; want Cancelled", st))
		}
		return errors.Join(errs...)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGrandchildReleaseRunsNoAncestorHooks: the Lease release of a
// grandchild g is the last hold of its parent c (body done, with an
// OnCancel callback), and c missed the walk of its own parent p (p's
// cancellation recorded and down stored; the walk comes later). The
// release finishes g, then c (finish takes p's cancellation for c): c's
// callback must run on the executor, before c is terminal, not on the
// releasing goroutine (DESIGN Lease).
func TestGrandchildReleaseRunsNoAncestorHooks(t *testing.T) {
	rt := New(goExecutor())
	defer rt.Close()
	cause := errors.New("cause")
	h := &hookProbe{released: make(chan struct{})}
	err := <-runBody(rt, func(root *Job) error {
		end := make(chan struct{})
		p, err := root.Launch(func(*Job) error { <-end; return nil })
		if err != nil {
			return err
		}
		defer close(end)
		var release func()
		var g *Job
		ready := make(chan struct{})
		c, err := p.Launch(func(c *Job) error {
			gready := make(chan struct{})
			var err error
			g, err = c.Launch(func(g *Job) error {
				var err error
				release, err = g.Lease()
				close(gready)
				return err
			})
			if err != nil {
				return err
			}
			<-gready
			c.OnCancel(func() { h.hook(c) })
			close(ready)
			return nil
		})
		if err != nil {
			return err
		}
		<-ready
		for g.state.Load()&bitBodyDone == 0 || c.state.Load()&bitBodyDone == 0 || holds(c.state.Load()) != 1 {
			runtime.Gosched() // c's body is done and only g holds it (g's body done too)
		}
		beginWalk(p, cause)
		go func() { release(); close(h.released) }()
		c.Join(nil)
		p.cancelWalk()
		<-h.released
		return h.check(c, cause)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFinishingWalkHookPanicDeferred: the walk of a finishing job
// (a Cancel meeting it) runs a callback that panics after the finisher has
// found the walk running and left the finish to it. The walk's end then
// finishes the job Failed (the panic) and applies the failure to the
// parent once: the job finishes once, the parent lists the failure once,
// and the counters add up. Run with and without a tracer (whose finish
// takes the locked path throughout).
func TestFinishingWalkHookPanicDeferred(t *testing.T) {
	for _, traced := range []bool{false, true} {
		t.Run(fmt.Sprint("traced=", traced), func(t *testing.T) {
			var opts []Option
			var finals atomic.Int32
			if traced {
				opts = append(opts, WithTracer(TracerFunc(func(e Event) {
					if e.Kind == EvJobFinalize {
						finals.Add(1)
					}
				})))
			}
			rt := New(goExecutor(), opts...)
			cause := errors.New("cause")
			var c, p *Job
			err := <-runBody(rt, func(root *Job) error {
				end := make(chan struct{})
				var err error
				p, err = root.Launch(func(*Job) error { <-end; return nil }, Supervisor())
				if err != nil {
					return err
				}
				defer close(end)
				var sawDeferred atomic.Bool
				c, err = finishingPlayed(p, func(c *Job) {
					c.OnCancel(func() {
						sawDeferred.Store(awaitFinishDeferred(c))
						panic("hook")
					})
				})
				if err != nil {
					return err
				}
				if !cancelMeetingFinisher(c, cause) {
					return errors.New("Cancel returned false")
				}
				var errs []error
				if !sawDeferred.Load() {
					errs = append(errs, errors.New("the finisher did not defer to the walk"))
				}
				var pe *PanicError
				if st := c.State(); st != Failed || !errors.As(c.Result(), &pe) {
					errs = append(errs, fmt.Errorf("job: %v %v; want Failed with the hook's panic", st, c.Result()))
				}
				return errors.Join(errs...)
			})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(p.Errors()); n != 0 {
				t.Errorf("supervisor parent lists %d failures; want 0", n)
			}
			rt.Close()
			s := rt.Stats()
			if s.JobsCreated != s.JobsCompleted+s.JobsFailed+s.JobsCancelled {
				t.Errorf("stats: %+v", s)
			}
			if s.JobsFailed != 1 {
				t.Errorf("JobsFailed = %d; want 1", s.JobsFailed)
			}
			if traced && finals.Load() != int32(s.JobsCreated) {
				t.Errorf("%d finalize events for %d jobs", finals.Load(), s.JobsCreated)
			}
		})
	}
}

// TestFinishingWalkHookPanicFailsParentOnce: as above, with a parent
// that is not a supervisor: the child's failure (the panic of its callback
// on the finishing walk) fails and cancels the parent once.
func TestFinishingWalkHookPanicFailsParentOnce(t *testing.T) {
	rt := New(goExecutor())
	cause := errors.New("cause")
	var p *Job
	err := <-runBody(rt, func(root *Job) error {
		return root.SupervisorScope(func(root *Job) error {
			end := make(chan struct{})
			var err error
			p, err = root.Launch(func(p *Job) error { <-end; return nil })
			if err != nil {
				return err
			}
			defer close(end)
			c, err := finishingPlayed(p, func(c *Job) {
				c.OnCancel(func() {
					awaitFinishDeferred(c)
					panic("hook")
				})
			})
			if err != nil {
				return err
			}
			cancelMeetingFinisher(c, cause)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	p.Join(nil)
	var pe *PanicError
	if errs := p.Errors(); len(errs) != 1 || !errors.As(errs[0], &pe) {
		t.Errorf("parent Errors() = %v; want the one panic", errs)
	}
	if st := p.State(); st != Failed {
		t.Errorf("parent %v; want Failed", st)
	}
	rt.Close()
	s := rt.Stats()
	if s.JobsCreated != s.JobsCompleted+s.JobsFailed+s.JobsCancelled {
		t.Errorf("stats: %+v", s)
	}
}

// TestCloseWaitsForHookTask: Runtime.Close, called while the core
// task that fires a finishing job's callbacks (hookTask, from a Lease
// release that took the parent's cancellation) is still running, waits
// for it: the job ends Cancelled after its callback, and Close returns
// only then, with every counter balanced.
func TestCloseWaitsForHookTask(t *testing.T) {
	rt := New(goExecutor())
	cause := errors.New("cause")
	inHook, unblock := make(chan struct{}), make(chan struct{})
	var hookDone atomic.Bool
	var c *Job
	started := make(chan struct{})
	go rt.Run(context.Background(), func(root *Job) error {
		p, err := root.Launch(func(p *Job) error { <-p.Done(); return nil })
		if err != nil {
			return err
		}
		var release func()
		c, release, err = finishingLeased(p, func(*Job) {
			close(inHook)
			<-unblock
			hookDone.Store(true)
		})
		if err != nil {
			return err
		}
		beginWalk(p, cause)
		release()      // quiet: the callback goes to a hookTask
		p.cancelWalk() // the walk that down announced
		close(started)
		return nil
	})
	<-started
	<-inHook
	testutil.BlocksUntil(t, "Close", func() { rt.Close() }, "the hookTask was still firing the callback", func() { close(unblock) })
	if !hookDone.Load() {
		t.Error("callback not done when Close returned")
	}
	if st := c.State(); st != Cancelled {
		t.Errorf("job ended %v; want Cancelled", st)
	}
	s := rt.Stats()
	if s.JobsCreated != s.JobsCompleted+s.JobsFailed+s.JobsCancelled {
		t.Errorf("stats: %+v", s)
	}
}
