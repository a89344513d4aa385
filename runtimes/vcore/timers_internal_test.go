package vcore

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// The sleep queue itself is tested in internal/sleepq; these are the
// tests that need the executor.

// Timers fire while every core is busy: the runtime timer of a shard
// does not need a core. The tasks spin until the timer's function lets
// them go; if it waited for a core, they would spin forever.
func TestSleepQueueFiresWhileWorkersBusy(t *testing.T) {
	testutil.NoLeak(t)
	e, err := New()
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

// Close waits for a timer function that is running: no goroutine of the
// executor, the fire's included, outlives it.
func TestSleepQueueCloseWaitsForFire(t *testing.T) {
	testutil.NoLeak(t)
	e, err := New()
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
