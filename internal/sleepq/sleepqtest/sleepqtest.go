// Package sleepqtest tests an executor's timers end to end: what a backend
// whose AfterFunc is a sleepq.Queue must get right around the queue, which
// the queue's own tests cannot see. A backend's test calls Test with a
// constructor of fresh executors.
package sleepqtest

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Test runs the timer tests, each on a fresh executor: busy makes one whose
// workers running tasks can all be kept busy (no worker is added beside
// them), plain one as the backend's New makes it by default.
func Test(t *testing.T, busy, plain func() (kc.Executor, error)) {
	t.Run("FiresWhileWorkersBusy", func(t *testing.T) { firesWhileBusy(t, busy) })
	t.Run("CloseWaitsForFire", func(t *testing.T) { closeWaitsForFire(t, plain) })
}

// firesWhileBusy: timers fire while every worker is busy, since the
// runtime timer of a shard needs no worker. The tasks spin until the
// timer's function lets them go; if it waited for a worker, they would
// spin forever.
func firesWhileBusy(t *testing.T, newEx func() (kc.Executor, error)) {
	testutil.NoLeak(t)
	e, err := newEx()
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(e)
	defer rt.Close()
	testutil.Watchdog(t, 10*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			var fired atomic.Bool
			return j.Scope(func(s *kc.Job) error {
				for range 2 * runtime.GOMAXPROCS(0) {
					if _, err := s.Launch(func(*kc.Job) error {
						for !fired.Load() {
							runtime.Gosched()
						}
						return nil
					}); err != nil {
						return err
					}
				}
				e.AfterFunc(time.Millisecond, func() { fired.Store(true) })
				return nil
			})
		})
		if err != nil {
			t.Error(err)
		}
	})
}

// closeWaitsForFire: Close waits for a timer function that is running, so
// no goroutine of the executor, the fire's included, outlives it.
func closeWaitsForFire(t *testing.T, newEx func() (kc.Executor, error)) {
	testutil.NoLeak(t)
	e, err := newEx()
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	var returned atomic.Bool
	e.AfterFunc(0, func() {
		close(started)
		time.Sleep(20 * time.Millisecond)
		returned.Store(true)
	})
	e.AfterFunc(time.Hour, func() { t.Error("a timer of an hour fired") }).Stop()
	<-started
	testutil.Watchdog(t, 10*time.Second, func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	if !returned.Load() {
		t.Error("Close returned while a timer's function was running")
	}
}
