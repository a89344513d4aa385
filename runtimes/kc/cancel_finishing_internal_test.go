package kc

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// finishingLeased launches into p a job whose body takes a Lease, registers
// an OnCancel callback (which calls hook) and returns; it returns the job
// and the lease's release once the body has ended, so that the release is
// the job's last hold: the one that makes it finishing.
func finishingLeased(p *Job, hook func(c *Job)) (c *Job, release func(), err error) {
	ready := make(chan struct{})
	c, err = p.Launch(func(c *Job) error {
		var err error
		if release, err = c.Lease(); err != nil {
			return err
		}
		c.OnCancel(func() { hook(c) })
		close(ready)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	<-ready
	for c.state.Load()&bitBodyDone == 0 {
		runtime.Gosched()
	}
	return c, release, nil
}

// hookProbe is an OnCancel callback that records its calls and whether the
// job was terminal during them, and first waits (up to 5 s) for released:
// a callback run by the Lease release itself would never see it closed.
type hookProbe struct {
	calls, terminal, onReleaser atomic.Int32
	released                    chan struct{}
}

func (h *hookProbe) hook(c *Job) {
	h.calls.Add(1)
	select {
	case <-h.released:
	case <-time.After(5 * time.Second):
		h.onReleaser.Add(1)
	}
	if c.terminal() {
		h.terminal.Add(1)
	}
}

func (h *hookProbe) check(c *Job, cause error) error {
	var errs []error
	if n := h.calls.Load(); n != 1 {
		errs = append(errs, fmt.Errorf("OnCancel callback ran %d times; want 1", n))
	}
	if h.onReleaser.Load() != 0 {
		errs = append(errs, errors.New("OnCancel callback ran on the Lease release's goroutine"))
	}
	if h.terminal.Load() != 0 {
		errs = append(errs, errors.New("OnCancel callback ran after the job was terminal"))
	}
	if st := c.State(); st != Cancelled {
		errs = append(errs, fmt.Errorf("job ended %v; want Cancelled", st))
	} else if err := c.Result(); !errors.Is(err, cause) {
		errs = append(errs, fmt.Errorf("Result = %v; want the cause", err))
	}
	return errors.Join(errs...)
}

// TestWalkOfFinishingJobRunsHooks: a Cancel whose request is recorded
// before the Lease release that makes the job finishing, and whose walk
// comes after it, still runs the job's OnCancel callback before the job is
// terminal; the release, whose finish finds the walk running, leaves the
// finish to it and returns without running the callback. The interleaving
// is forced: the test records the request under the job's lock, as
// cancelLocking does, and walks once the release has dropped the hold.
func TestWalkOfFinishingJobRunsHooks(t *testing.T) {
	rt := New(goExecutor())
	defer rt.Close()
	cause := errors.New("cause")
	h := &hookProbe{released: make(chan struct{})}
	err := <-runBody(rt, func(root *Job) error {
		c, release, err := finishingLeased(root, h.hook)
		if err != nil {
			return err
		}
		c.lockSlow()
		if moved, walk := c.requestCancelLocked(cause, byCancel); !moved || !walk {
			c.mu.Unlock()
			return fmt.Errorf("request: moved %v, walk %v; want true, true", moved, walk)
		}
		go func() { release(); close(h.released) }()
		for holds(c.state.Load()) != 0 {
			runtime.Gosched()
		}
		c.cancelWalkLocked() // meets c finishing; its finisher waits for c.mu
		<-h.released
		c.Join(nil)
		return h.check(c, cause)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFinisherTakingParentCancelRunsNoHooks: the Lease release that
// finishes a job which missed its parent's walk takes the parent's
// cancellation (finish), and the job's OnCancel callback then runs on the
// executor, before the job is terminal, not on the releasing goroutine.
// The test records the parent's cancellation as its walk does before it
// reaches its children (down stored), and lets the walk run afterwards.
func TestFinisherTakingParentCancelRunsNoHooks(t *testing.T) {
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
		c, release, err := finishingLeased(p, h.hook)
		if err != nil {
			return err
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

// beginWalk records p's cancellation as its walk does before it reaches
// its children (the request, then the down flag), and leaves the rest of
// the walk to a later p.cancelWalk: a child that learns of it meanwhile
// has missed the walk.
func beginWalk(p *Job, cause error) {
	p.lockSlow()
	p.requestCancelLocked(cause, byCancel)
	p.down.Store(1)
	p.mu.Unlock()
}

// runBody runs body as a root job of rt and delivers its error.
func runBody(rt *Runtime, body Func) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- rt.Run(context.Background(), body) }()
	return errc
}
