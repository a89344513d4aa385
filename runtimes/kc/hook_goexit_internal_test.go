package kc

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
)

// TestFinishingWalkHookGoexit: the walk of a finishing job (a Cancel
// meeting it) claims three callbacks, and the middle one calls
// runtime.Goexit after the finisher has found the walk running and left
// the finish to it. The Goexit ends the hookTask's goroutine only: the
// callback after it still runs, on the task that hookTask.call hands the
// rest to, whose end of the walk finishes the job, Failed with an error
// matching ErrGoexit, once; and Close returns.
func TestFinishingWalkHookGoexit(t *testing.T) {
	rt := New(goExecutor())
	var others atomic.Int32
	var sawDeferred atomic.Bool
	var c *Job
	testutil.Watchdog(t, 10*time.Second, func() {
		err := <-runBody(rt, func(root *Job) error {
			var err error
			c, err = finishingPlayed(root, func(c *Job) {
				// Linked at the head: they run in the reverse order.
				c.OnCancel(func() { others.Add(1) })
				c.OnCancel(func() {
					sawDeferred.Store(awaitFinishDeferred(c))
					runtime.Goexit()
				})
				c.OnCancel(func() { others.Add(1) })
			})
			if err != nil {
				return err
			}
			if !cancelMeetingFinisher(c, nil) {
				return errors.New("Cancel returned false")
			}
			return nil
		})
		if !errors.Is(err, ErrGoexit) {
			t.Errorf("Run: %v; want the child's failure, matching ErrGoexit", err)
		}
		if err := rt.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if !sawDeferred.Load() {
		t.Error("the finisher did not defer to the walk")
	}
	if st, errs := c.State(), c.Errors(); st != Failed || len(errs) != 1 || !errors.Is(errs[0], ErrGoexit) {
		t.Errorf("job: %v with failures %v; want Failed with one matching ErrGoexit", st, errs)
	}
	if n := others.Load(); n != 2 {
		t.Errorf("the other callbacks ran %d times; want 2", n)
	}
	if s := rt.Stats(); s.JobsCreated != s.JobsCompleted+s.JobsFailed+s.JobsCancelled || s.JobsFailed != 2 {
		t.Errorf("stats: %+v; want every job counted once, 2 failed (the child and the root)", s)
	}
}

// TestHookGoexitEachCallback: every callback of a walk calls Goexit; each
// one's goroutine ends, the next runs on a new task, the job lists one
// failure per Goexit and ends, and Close returns.
func TestHookGoexitEachCallback(t *testing.T) {
	const n = 5
	rt := New(goExecutor())
	var calls atomic.Int32
	var c *Job
	testutil.Watchdog(t, 10*time.Second, func() {
		<-runBody(rt, func(root *Job) error {
			return root.SupervisorScope(func(s *Job) error {
				var err error
				if c, err = s.Open(); err != nil {
					return err
				}
				for range n {
					c.OnCancel(func() { calls.Add(1); runtime.Goexit() })
				}
				c.Cancel(nil)
				c.Join(nil)
				return nil
			})
		})
		if err := rt.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if got := calls.Load(); got != n {
		t.Errorf("callbacks run: %d; want %d", got, n)
	}
	errs := c.Errors()
	for _, err := range errs {
		if !errors.Is(err, ErrGoexit) {
			t.Errorf("failure %v does not match ErrGoexit", err)
		}
	}
	if st := c.State(); st != Failed || len(errs) != n {
		t.Errorf("job: %v with %d failures; want Failed with %d", st, len(errs), n)
	}
}
