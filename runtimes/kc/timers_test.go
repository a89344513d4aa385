package kc_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// lateTimers hands every timer's callback to a goroutine that runs it only
// once release is closed, and whose Stop always comes too late (it reports
// false: the call has started). The core must then count the timer as
// pending until the callback has returned.
type lateTimers struct {
	*goroutine.Executor
	release chan struct{}
	armed   atomic.Int32 // callbacks handed out
	entered atomic.Int32 // callbacks started
}

func (e *lateTimers) AfterFunc(_ time.Duration, f func()) kc.Timer {
	e.armed.Add(1)
	go func() {
		<-e.release
		e.entered.Add(1)
		f()
	}()
	return lateTimer{}
}

type lateTimer struct{}

func (lateTimer) Stop() bool { return false }

// TestCloseWaitsForTimerCallbacks checks that Runtime.Close returns only
// after every timer callback whose Stop came too late has returned, for
// each way the core arms a timer (Sleep, a timed WaitAll, WithTimeout),
// and that it does not return while one is still held back.
func TestCloseWaitsForTimerCallbacks(t *testing.T) {
	ex := &lateTimers{Executor: goroutine.New(), release: make(chan struct{})}
	rt := kc.New(ex)
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		if _, err := j.Launch(func(c *kc.Job) error {
			return c.Sleep(time.Hour)
		}); err != nil {
			return err
		}
		if err := j.WithTimeout(time.Hour, func(*kc.Job) error { return nil }); err != nil {
			return err
		}
		nur, err := j.Open()
		if err != nil {
			return err
		}
		if _, err := nur.Launch(func(*kc.Job) error { return nil }); err != nil {
			return err
		}
		if err := nur.WaitAll(time.Hour); err != nil {
			return err
		}
		nur.Close()
		j.Cancel(nil) // ends the sleeper; its timer's Stop comes too late
		return nil
	})
	if err == nil {
		t.Fatal("Run = nil; want the cancellation")
	}
	closed := make(chan struct{})
	go func() { rt.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatalf("Close returned with %d timer callbacks held back", ex.armed.Load())
	case <-time.After(50 * time.Millisecond):
	}
	close(ex.release)
	testutil.Watchdog(t, time.Minute, func() { <-closed })
	// Close returned, so every callback has returned: all have started.
	if a, e := ex.armed.Load(), ex.entered.Load(); a != e {
		t.Errorf("Close returned with %d of %d timer callbacks started; want all", e, a)
	}
}

// TestWithTimeoutGoexitStopsTimer checks that a WithTimeout scope whose
// body ends its goroutine with runtime.Goexit leaves no timer armed: the
// scope fails with ErrGoexit, and Runtime.Close, which waits for armed
// timers, returns at once rather than when the hour is up.
func TestWithTimeoutGoexitStopsTimer(t *testing.T) {
	testutil.NoLeak(t)
	for _, name := range runtimes.Names() {
		t.Run(name, func(t *testing.T) {
			rt, err := runtimes.New(name)
			if err != nil {
				t.Fatal(err)
			}
			var returned bool
			err = rt.Run(context.Background(), func(j *kc.Job) error {
				c, err := j.Launch(func(c *kc.Job) error {
					c.WithTimeout(time.Hour, func(*kc.Job) error {
						runtime.Goexit()
						return nil
					})
					returned = true
					return nil
				})
				if err != nil {
					return err
				}
				if err := c.Join(nil); !errors.Is(err, kc.ErrGoexit) {
					t.Errorf("the child whose WithTimeout body called Goexit: Join = %v; want ErrGoexit", err)
				}
				return nil
			})
			if !errors.Is(err, kc.ErrGoexit) {
				t.Errorf("Run = %v; want ErrGoexit", err)
			}
			if returned {
				t.Error("WithTimeout returned; want its body's Goexit to end the goroutine")
			}
			testutil.Watchdog(t, 10*time.Second, func() { rt.Close() })
		})
	}
}

// doubleTimers breaks the Timer contract in one of two ways: its timers
// call their callback twice, or their Stop reports that it prevented a
// call that has run.
type doubleTimers struct {
	*goroutine.Executor
	lyingStop bool
}

func (e *doubleTimers) AfterFunc(d time.Duration, f func()) kc.Timer {
	if e.lyingStop {
		return lyingTimer{time.AfterFunc(d, f)}
	}
	return time.AfterFunc(d, func() { f(); f() })
}

type lyingTimer struct{ t *time.Timer }

func (l lyingTimer) Stop() bool { l.t.Stop(); return true }

// An executor whose timer fires twice, or whose Stop reports true after
// the call, makes Close return ErrBrokenExecutor; the second event changes
// nothing else (it used to make the core's timer count negative, which
// panicked on the timer's goroutine). A Sleep and a WithTimeout each
// arm a timer; both fire.
func TestBrokenTimerReportedByClose(t *testing.T) {
	for _, lying := range []bool{false, true} {
		rt := kc.New(&doubleTimers{Executor: goroutine.New(), lyingStop: lying})
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			if err := j.Sleep(time.Millisecond); err != nil {
				return err
			}
			err := j.WithTimeout(time.Millisecond, func(s *kc.Job) error { return s.Sleep(time.Hour) })
			if !errors.Is(err, kc.ErrTimeout) {
				return fmt.Errorf("WithTimeout: got %v; want ErrTimeout", err)
			}
			return nil
		})
		if err != nil {
			t.Errorf("lying Stop %v: Run: %v", lying, err)
		}
		if err := rt.Close(); !errors.Is(err, kc.ErrBrokenExecutor) {
			t.Errorf("lying Stop %v: Close: got %v; want ErrBrokenExecutor", lying, err)
		}
	}
}
