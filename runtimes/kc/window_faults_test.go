//go:build kcfaults

package kc

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// withWindow sets windowHook to h for the duration of f.
func withWindow(t *testing.T, h func(windowPoint, *Job), f func()) {
	t.Helper()
	windowHook.Store(&h)
	defer windowHook.Store(nil)
	f()
}

// TestWaitAllJudgesHoldsAfterItsOr: a WaitAll whose job's last hold is
// released between the wait taking j.mu and setting bitWaitAll (the
// release then sees no waiter and does not lock) returns at once: the wait
// judges the holds from the word its own Or returns. A wait that judged
// them from the word it read before would sleep with no one left to wake
// it. The hook releases the job's only lease at that point.
func TestWaitAllJudgesHoldsAfterItsOr(t *testing.T) {
	rt := New(goExecutor())
	defer rt.Close()
	for round := range 10 {
		err := rt.Run(context.Background(), func(j *Job) error {
			release, err := j.Lease()
			if err != nil {
				return err
			}
			var fired atomic.Bool
			withWindow(t, func(p windowPoint, x *Job) {
				if p == winWaitAllOr && x == j && fired.CompareAndSwap(false, true) {
					release() // lock-free: this goroutine holds j.mu
				}
			}, func() {
				if err := j.WaitAll(5 * time.Second); err != nil {
					t.Errorf("round %d: WaitAll whose last hold went as it registered: %v; want nil", round, err)
				}
			})
			if !fired.Load() {
				t.Errorf("round %d: the WaitAll never reached winWaitAllOr", round)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("round %d: Run: %v", round, err)
		}
		if t.Failed() {
			return
		}
	}
}

// TestClosingDoesNotUndoEnd: a job whose body returns while a lease holds
// it is finished by the lease's release, lock-free, possibly before the
// body's goroutine writes Closing; that write must then leave the job
// terminal (no transition leaves a terminal state). The hook releases the
// lease right at that point, on the body's goroutine.
func TestClosingDoesNotUndoEnd(t *testing.T) {
	rt := New(goExecutor()) // not closed on a failure: Close would wait for the job that never ends
	for round := range 10 {
		var (
			self  atomic.Pointer[Job]
			rel   atomic.Pointer[func()]
			fired atomic.Bool
		)
		var c *Job
		run := func(j *Job) error {
			var err error
			c, err = j.Launch(func(c *Job) error {
				release, err := c.Lease()
				if err != nil {
					return err
				}
				rel.Store(&release)
				self.Store(c)
				return nil
			})
			if err != nil {
				return err
			}
			return c.Join(j)
		}
		withWindow(t, func(p windowPoint, x *Job) {
			if p == winBodyDoneClosing && x == self.Load() && fired.CompareAndSwap(false, true) {
				(*rel.Load())()
			}
		}, func() {
			done := make(chan error, 1)
			go func() { done <- rt.Run(context.Background(), run) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("round %d: Run: %v", round, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("round %d: Run hung: the job finished by its lease's release is %v; want Completed", round, self.Load().State())
			}
		})
		if !fired.Load() {
			t.Fatalf("round %d: the body's end never reached winBodyDoneClosing", round)
		}
		if st := c.State(); st != Completed {
			t.Fatalf("round %d: job finished by its lease's release as its body ended: state %v; want Completed", round, st)
		}
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
}
