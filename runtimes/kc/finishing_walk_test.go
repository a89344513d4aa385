package kc_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestOnCancelAfterCancelMeetsFinish: Cancel lands as the job's last
// Lease is released (the job finishing) and returns true; an OnCancel
// registered right after it (the job is already cancelled: f must run at
// once) runs, also when the job had no callback at the time of the Cancel
// (the walk of a finishing job then only closes Done and marks itself
// done). Swept like TestOnCancelRunsWhenCancelMeetsFinish.
func TestOnCancelAfterCancelMeetsFinish(t *testing.T) {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	cause := errors.New("cause")
	deadline := time.Now().Add(edgeSweep)
	var rounds, moved, hits int
	err := rt.Run(context.Background(), func(root *kc.Job) error {
		for i := 0; time.Now().Before(deadline); i++ {
			rounds++
			var release func()
			ready := make(chan struct{})
			c, err := root.Launch(func(c *kc.Job) error {
				var err error
				if release, err = c.Lease(); err != nil {
					return err
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
				for !gate.Load() {
				}
				spinFor(i % 64)
				release()
			}()
			for !spinning.Load() {
				runtime.Gosched()
			}
			gate.Store(true)
			var called atomic.Bool
			m := c.Cancel(cause)
			doneClosed := isClosed(c.Done())
			c.OnCancel(func() { called.Store(true) })
			<-done
			c.Join(nil)
			if m {
				moved++
				if !doneClosed || c.State() == kc.Cancelled && !called.Load() {
					hits++
					if hits == 1 {
						t.Errorf("round %d: Cancel returned true; Done closed right after: %v; job ended %v, OnCancel registered after the Cancel ran: %v", i, doneClosed, c.State(), called.Load())
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rounds, Cancel moved %d, bad %d", rounds, moved, hits)
}
