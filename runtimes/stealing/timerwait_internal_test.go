package stealing

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/internal/sleepq"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// newTimerExec returns an executor of n workers whose short-timer budget
// is spin, and its runtime, closed at the end of the test.
func newTimerExec(t *testing.T, n int, spin time.Duration) (*Executor, *kc.Runtime) {
	t.Helper()
	if !goruntime.GOK {
		t.Skip("no goroutine identities on this architecture: every Park blocks")
	}
	e, err := New(Workers(n))
	if err != nil {
		t.Fatal(err)
	}
	e.timerSpin = spin // before any task runs
	rt := kc.New(e)
	t.Cleanup(func() { rt.Close() })
	return e, rt
}

// A task's short sleeps are waited for spinning: the timer's wake comes
// while the task spins, and its coroutine is never suspended. Sleeps of
// 200 µs under a budget of 5 ms leave a loaded machine's timers room to
// be late; most, not all, must be woken while spinning.
func TestShortSleepSpins(t *testing.T) {
	e, rt := newTimerExec(t, 2, 5*time.Millisecond)
	const n, d = 100, 200 * time.Microsecond
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		for range n {
			if err := j.Sleep(d); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if woken, handed := e.tstats.woken.Load(), e.tstats.handed.Load(); woken < n/2 {
		t.Errorf("after %d sleeps of %v: %d woken while spinning, %d suspended after a spin; want most woken while spinning", n, d, woken, handed)
	}
}

// A sleep longer than the budget is never spun for: the task suspends at
// once.
func TestLongSleepDoesNotSpin(t *testing.T) {
	e, rt := newTimerExec(t, 2, 20*time.Microsecond)
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		for range 5 {
			if err := j.Sleep(time.Millisecond); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if woken, handed := e.tstats.woken.Load(), e.tstats.handed.Load(); woken != 0 || handed != 0 {
		t.Errorf("after 5 sleeps of 1ms with a 20µs budget: %d woken while spinning, %d suspended after a spin; want no spin", woken, handed)
	}
}

// A task queued on the executor is not held up by a short sleep: the
// sleeper suspends instead of spinning, and the child runs. With one
// worker, a sleeper that spun while the child waited would keep it
// waiting for the whole sleep.
func TestShortSleepYieldsToWork(t *testing.T) {
	e, rt := newTimerExec(t, 1, 50*time.Millisecond)
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		return j.Scope(func(s *kc.Job) error {
			if _, err := s.Launch(func(*kc.Job) error { return nil }); err != nil {
				return err
			}
			return s.Sleep(20 * time.Millisecond)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if woken, handed := e.tstats.woken.Load(), e.tstats.handed.Load(); woken != 0 || handed != 1 {
		t.Errorf("a sleep with a child queued: %d woken while spinning, %d suspended after a spin; want 0 and 1", woken, handed)
	}
}

// AfterFunc notes the due time of a timer a task arms only for a timer
// within the budget; Park consumes it, and the worker loop clears it before
// the next task, so a timer armed and never waited for makes no later Park
// spin.
func TestAfterFuncNotesShortTimers(t *testing.T) {
	e, rt := newTimerExec(t, 1, time.Millisecond)
	self := func() *coro { return e.gt.lookup(goruntime.G()) }
	noop := func() {}
	var first *coro
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		c := self()
		if c == nil {
			return errors.New("the root body does not run on a loop coroutine")
		}
		e.AfterFunc(time.Hour, noop).Stop()
		if c.due != 0 {
			return fmt.Errorf("due after an hour's timer: %d; want 0 (not spun for)", c.due)
		}
		before := sleepq.Now()
		e.AfterFunc(500*time.Microsecond, noop).Stop()
		if c.due < before {
			return fmt.Errorf("due after a 500µs timer: %d; want at least %d", c.due, before)
		}
		if err := j.Sleep(5 * time.Millisecond); err != nil {
			return err
		}
		if c := self(); c.due != 0 {
			return fmt.Errorf("due after a Park: %d; want 0 (consumed)", c.due)
		}
		e.AfterFunc(500*time.Microsecond, noop).Stop() // armed, never waited for
		first = self()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = rt.Run(context.Background(), func(j *kc.Job) error {
		if c := self(); c == first && c.due != 0 {
			return fmt.Errorf("due at the start of the next task on the same coroutine: %d; want 0", c.due)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
