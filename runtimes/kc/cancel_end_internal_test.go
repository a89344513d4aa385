package kc

import (
	"context"
	"errors"
	"testing"
	"time"
)

// goExecutor runs every task on a goroutine of its own and parks by
// blocking, like the goroutine backend (which this package's internal
// tests cannot import).
func goExecutor() *spinExecutor { return &spinExecutor{spin: func(*Parker) {}} }

// sleepingLeaf opens a nursery under j and launches into it one child whose
// body sleeps until cancelled, reports its wake on slept with what Sleep
// returned, waits for proceed, and returns Sleep's error. It returns the
// nursery and the child once the child is parked in its Sleep. It runs in
// a body, not on the test's goroutine, so it returns its errors.
func sleepingLeaf(j *Job, slept chan<- error, proceed <-chan struct{}) (n, c *Job, err error) {
	n, err = j.Open()
	if err != nil {
		return nil, nil, err
	}
	c, err = n.Launch(func(c *Job) error {
		err := c.Sleep(time.Hour)
		slept <- err
		<-proceed
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	// Parked: its Sleep's wait is on its hooks (listed under c.mu).
	for {
		c.mu.Lock()
		parked := c.hooks != nil
		c.mu.Unlock()
		if parked {
			return n, c, nil
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCancelledLeafEndsWithoutLock: a child parked in Sleep that the
// nursery's cancel walk wakes, with nothing else registered on it, has
// bitSlow cleared by the walk's CAS and ends Cancelled on one CAS
// (endCancelled): its end, and the nursery's, need no Job.mu of the child,
// which the test holds meanwhile.
func TestCancelledLeafEndsWithoutLock(t *testing.T) {
	rt := New(goExecutor())
	cause := errors.New("cause")
	err := rt.Run(context.Background(), func(j *Job) error {
		slept, proceed := make(chan error, 1), make(chan struct{})
		n, c, err := sleepingLeaf(j, slept, proceed)
		if err != nil {
			return err
		}
		n.Cancel(cause)
		if err := <-slept; !errors.Is(err, ErrCancelled) || !errors.Is(err, cause) {
			t.Errorf("Sleep = %v; want ErrCancelled wrapping the cause", err)
		}
		if s := c.state.Load(); s&bitSlow != 0 {
			t.Errorf("state after the walk = %#x; want bitSlow clear", s)
		}
		c.mu.Lock()
		close(proceed)
		err = n.WaitAll(10 * time.Second)
		c.mu.Unlock()
		if err != nil {
			t.Errorf("WaitAll with the child's mutex held = %v; want nil (the child ends without it)", err)
		}
		if st := c.State(); st != Cancelled {
			t.Errorf("child State = %v; want Cancelled", st)
		}
		return nil
	})
	if err != nil {
		t.Errorf("Run: %v", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	if st := rt.Stats(); st.JobsCancelled != 2 || st.CancellationsRequested != 2 {
		t.Errorf("Stats = %+v; want 2 cancelled (nursery and child), 2 requests", st)
	}
}

// TestCancelledLeafJoinedAfterWalk: a Join registered on the woken child
// after the walk (it sets bitSlow again) keeps the child's end on the
// locked path, which wakes the joiner with the child's outcome.
func TestCancelledLeafJoinedAfterWalk(t *testing.T) {
	rt := New(goExecutor())
	err := rt.Run(context.Background(), func(j *Job) error {
		slept, proceed := make(chan error, 1), make(chan struct{})
		n, c, err := sleepingLeaf(j, slept, proceed)
		if err != nil {
			return err
		}
		n.Cancel(nil)
		<-slept
		if s := c.state.Load(); s&bitSlow != 0 {
			t.Errorf("state after the walk = %#x; want bitSlow clear", s)
		}
		joined := make(chan error, 1)
		go func() { joined <- c.Join(nil) }()
		for c.state.Load()&bitSlow == 0 {
			time.Sleep(time.Millisecond) // until the Join registers
		}
		close(proceed)
		if err := <-joined; !errors.Is(err, ErrCancelled) {
			t.Errorf("Join = %v; want ErrCancelled", err)
		}
		if st := c.State(); st != Cancelled {
			t.Errorf("child State = %v; want Cancelled", st)
		}
		return n.AwaitAll(j)
	})
	if !errors.Is(err, ErrCancelled) {
		t.Errorf("Run = %v; want the nursery's cancellation", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCancelErrWithoutLock: the cancellation error of a job cancelled other
// than by its own timeout is final, and cancelErr reads it without Job.mu.
func TestCancelErrWithoutLock(t *testing.T) {
	rt := New(goExecutor())
	cause := errors.New("cause")
	err := rt.Run(context.Background(), func(j *Job) error {
		n, err := j.Open()
		if err != nil {
			return err
		}
		n.Cancel(cause)
		n.mu.Lock()
		got := make(chan error, 1)
		go func() { got <- n.cancelErr() }()
		select {
		case err := <-got:
			if !errors.Is(err, cause) {
				t.Errorf("cancelErr = %v; want the cause", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("cancelErr blocked on the job's mutex")
			n.mu.Unlock()
			<-got
			return nil
		}
		n.mu.Unlock()
		return nil
	})
	if err != nil {
		t.Errorf("Run: %v", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
}
