package kc_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestOnCancelWhenCancelMeetsFinish: Cancel lands as the job's last
// Lease is released (the job finishing), the two sides' alignment shifted
// from round to round. Whenever Cancel returns true, the job ends
// Cancelled, Done is closed as Cancel returns, and every OnCancel callback
// runs: one registered before the Cancel (even rounds), and one
// registered right after it (the job is already cancelled: it runs at
// once), also when the job had none at the time of the Cancel (odd
// rounds: the walk of a finishing job then only closes Done and marks
// itself done). A callback never runs on a job that ended Completed.
func TestOnCancelWhenCancelMeetsFinish(t *testing.T) {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	cause := errors.New("cause")
	deadline := time.Now().Add(edgeSweep)
	var rounds, moved, bad int
	err := rt.Run(context.Background(), func(root *kc.Job) error {
		for i := 0; time.Now().Before(deadline); i++ {
			rounds++
			before := i%2 == 0
			var calledBefore, calledAfter atomic.Bool
			var release func()
			ready := make(chan struct{})
			c, err := root.Launch(func(c *kc.Job) error {
				var err error
				if release, err = c.Lease(); err != nil {
					return err
				}
				if before {
					c.OnCancel(func() { calledBefore.Store(true) })
				}
				close(ready)
				return nil
			})
			if err != nil {
				return err
			}
			<-ready
			for c.State() == kc.Active {
				runtime.Gosched()
			}
			var gate, spinning atomic.Bool
			done := make(chan struct{})
			go func() {
				defer close(done)
				spinning.Store(true)
				testutil.SpinUntil(&gate)
				spinFor(i % 64)
				release()
			}()
			for !spinning.Load() {
				runtime.Gosched()
			}
			gate.Store(true)
			m := c.Cancel(cause)
			doneClosed := isClosed(c.Done())
			c.OnCancel(func() { calledAfter.Store(true) })
			<-done
			c.Join(nil)
			st := c.State()
			var why string
			switch {
			case m && st != kc.Cancelled:
				why = "Cancel returned true but the job ended " + st.String()
			case m && !doneClosed:
				why = "Cancel returned true but Done was still open"
			case st == kc.Cancelled && before && !calledBefore.Load():
				why = "the job ended Cancelled but the callback registered before the Cancel never ran"
			case st == kc.Cancelled && !calledAfter.Load():
				why = "the job ended Cancelled but the callback registered after the Cancel never ran"
			case st == kc.Completed && (calledBefore.Load() || calledAfter.Load()):
				why = "the job ended Completed but a callback ran"
			}
			if m {
				moved++
			}
			if why != "" {
				bad++
				if bad == 1 {
					t.Errorf("round %d (callback before the Cancel: %v): %s", i, before, why)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rounds, Cancel moved %d, bad %d", rounds, moved, bad)
}
