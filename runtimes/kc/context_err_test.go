package kc_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestErrStableWhenCancelReplacesTimeout guards context.Context's rule
// that Err, once non-nil, returns the same error on every call: a
// WithTimeout scope whose timer fired reports the timeout (matching
// context.DeadlineExceeded); an explicit Cancel afterwards replaces the
// cause for Check and for the scope's Result (spec 01 4.17), but Err keeps
// reporting the timeout. A scope whose Err is first asked after the
// replacement reports the explicit cause, also stably.
func TestErrStableWhenCancelReplacesTimeout(t *testing.T) {
	testutil.NoLeak(t)
	rt := kc.New(goroutine.New())
	defer rt.Close()
	explicit := errors.New("explicit")
	var scopeErr, lateErr error
	testutil.Watchdog(t, 10*time.Second, func() {
		rt.Run(context.Background(), func(j *kc.Job) error {
			scopeErr = j.WithTimeout(time.Millisecond, func(s *kc.Job) error {
				<-s.Done()
				e1 := s.Err()
				if !errors.Is(e1, context.DeadlineExceeded) {
					t.Errorf("Err after the timeout = %v; want a match for context.DeadlineExceeded", e1)
				}
				s.Cancel(explicit)
				if e2 := s.Err(); e2 != e1 {
					t.Errorf("Err = %v, then after Cancel(explicit) %v; want the same error", e1, e2)
				}
				if err := s.Check(); !errors.Is(err, explicit) {
					t.Errorf("Check after Cancel(explicit) = %v; want the explicit cause", err)
				}
				return nil
			})
			lateErr = j.WithTimeout(time.Millisecond, func(s *kc.Job) error {
				<-s.Done()
				s.Cancel(explicit)
				e1 := s.Err()
				if e2 := s.Err(); e1 == nil || e2 != e1 || !errors.Is(e1, explicit) {
					t.Errorf("Err first asked after Cancel(explicit) = %v, then %v; want the explicit cause twice", e1, e2)
				}
				return nil
			})
			return nil
		})
	})
	for _, err := range []error{scopeErr, lateErr} {
		if !errors.Is(err, kc.ErrCancelled) || !errors.Is(err, explicit) {
			t.Errorf("WithTimeout = %v; want the explicit cancellation (it replaced the timeout)", err)
		}
	}
}

// Err of a job that ended without being cancelled matches ErrFinished (and
// ErrCancelled and context.Canceled, as a context's Err must once Done is
// closed); Err of a job that was cancelled, or that failed (a failure
// cancels the job), does not match ErrFinished, and carries its cause.
func TestErrFinished(t *testing.T) {
	testutil.NoLeak(t)
	rt := kc.New(goroutine.New())
	defer rt.Close()
	boom := errors.New("boom")
	why := errors.New("why")
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			done, err := s.Launch(func(*kc.Job) error { return nil })
			if err != nil {
				return err
			}
			failed, err := s.Launch(func(*kc.Job) error { return boom })
			if err != nil {
				return err
			}
			cancelled, err := s.Launch(func(c *kc.Job) error { <-c.Done(); return c.Err() })
			if err != nil {
				return err
			}
			cancelled.Cancel(why)
			for _, c := range []*kc.Job{done, failed, cancelled} {
				c.Join(s)
				<-c.Done()
			}
			if e := done.Err(); !errors.Is(e, kc.ErrFinished) || !errors.Is(e, kc.ErrCancelled) || !errors.Is(e, context.Canceled) {
				t.Errorf("Err of a job that completed: %v; want one matching ErrFinished, ErrCancelled and context.Canceled", e)
			}
			if e := failed.Err(); errors.Is(e, kc.ErrFinished) || !errors.Is(e, boom) {
				t.Errorf("Err of a job that failed: %v; want its failure, not ErrFinished", e)
			}
			if e := cancelled.Err(); errors.Is(e, kc.ErrFinished) || !errors.Is(e, why) || !errors.Is(e, kc.ErrCancelled) {
				t.Errorf("Err of a job that was cancelled: %v; want its cause and ErrCancelled, not ErrFinished", e)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}
