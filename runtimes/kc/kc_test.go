package kc_test

import (
	"context"
	"errors"
	"testing"
	"time"
	"unsafe"

	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

func TestJobSize(t *testing.T) {
	if s := unsafe.Sizeof(kc.Job{}); s > 128 {
		t.Fatalf("sizeof(Job) = %d; want <= 128 (spec 01 4.20)", s)
	} else {
		t.Logf("sizeof(Job) = %d", s)
	}
}

func TestSmoke(t *testing.T) {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		d, err := kc.Async(j, func(j *kc.Job) (int, error) { return 42, nil })
		if err != nil {
			return err
		}
		v, err := d.Await(j)
		if v != 42 || err != nil {
			t.Errorf("Await = %v, %v", v, err)
		}
		boom := errors.New("boom")
		err = j.Scope(func(s *kc.Job) error {
			s.Launch(func(c *kc.Job) error { return c.Sleep(time.Hour) })
			s.Launch(func(c *kc.Job) error { return boom })
			return nil
		})
		if !errors.Is(err, boom) {
			t.Errorf("Scope = %v; want boom", err)
		}
		err = j.WithTimeout(10*time.Millisecond, func(s *kc.Job) error { return s.Sleep(time.Hour) })
		if !errors.Is(err, kc.ErrTimeout) || errors.Is(err, kc.ErrCancelled) {
			t.Errorf("WithTimeout = %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", rt.Stats())
}

// TestCancelErrorMatchesWithoutAllocating checks that a cancelled job's
// Result matches ErrCancelled, context.Canceled and its cause, and that the
// first two matches (made once for every job a cancellation ends) do not
// allocate.
func TestCancelErrorMatchesWithoutAllocating(t *testing.T) {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	cause := errors.New("cause")
	var res error
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		c, err := j.Launch(func(c *kc.Job) error { return c.Sleep(time.Hour) })
		if err != nil {
			return err
		}
		c.Cancel(cause)
		c.Join(j)
		res = c.Result()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []error{kc.ErrCancelled, context.Canceled, cause} {
		if !errors.Is(res, target) {
			t.Errorf("errors.Is(%v, %v) = false; want true", res, target)
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		if !errors.Is(res, kc.ErrCancelled) || !errors.Is(res, context.Canceled) {
			t.Fatal("no match")
		}
	}); n != 0 {
		t.Errorf("errors.Is on a cancellation error: %v allocs; want 0", n)
	}
}

// eagerTimers fires every timer shorter than a millisecond at once, on the
// goroutine that arms it: the slowest start a body can have.
type eagerTimers struct{ kc.Executor }

func (e eagerTimers) AfterFunc(d time.Duration, f func()) kc.Timer {
	if d < time.Millisecond {
		f()
		return firedTimer{}
	}
	return e.Executor.AfterFunc(d, f)
}

type firedTimer struct{}

func (firedTimer) Stop() bool { return false }

// TestWithTimeoutBodyAlwaysRuns checks that a WithTimeout body runs however
// soon its deadline passes (d > 0), even when the timer fires before the
// body could start, and that WithTimeout(0) skips its body.
func TestWithTimeoutBodyAlwaysRuns(t *testing.T) {
	rt := kc.New(eagerTimers{goroutine.New()})
	defer rt.Close()
	ran := 0
	var first error
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		first = j.WithTimeout(time.Nanosecond, func(s *kc.Job) error {
			ran++
			return s.Check()
		})
		return j.WithTimeout(0, func(*kc.Job) error { ran = -1; return nil })
	})
	if !errors.Is(first, kc.ErrTimeout) {
		t.Errorf("WithTimeout(1ns) = %v; want ErrTimeout", first)
	}
	if !errors.Is(err, kc.ErrTimeout) {
		t.Errorf("WithTimeout(0) = %v; want ErrTimeout", err)
	}
	switch ran {
	case 0:
		t.Errorf("WithTimeout(1ns) skipped its body; want it run")
	case -1:
		t.Errorf("WithTimeout(0) ran its body; want it skipped (the deadline passed before the call)")
	}
}
