package kc_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Run starts a root job and returns once it and all its children are done.
func ExampleRuntime_Run() {
	rt := kc.New(goroutine.New())
	defer rt.Close()

	var done atomic.Int32
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		for range 3 {
			if _, err := j.Launch(func(*kc.Job) error { done.Add(1); return nil }); err != nil {
				return err
			}
		}
		return nil // the root still waits for its three children
	})
	fmt.Println(err, done.Load())
	// Output: <nil> 3
}

// A failing child cancels its siblings, and Scope returns the first failure.
func ExampleJob_Scope() {
	rt := kc.New(goroutine.New())
	defer rt.Close()

	errDisk := errors.New("disk full")
	_ = rt.Run(context.Background(), func(j *kc.Job) error {
		var sibling *kc.Job
		err := j.Scope(func(s *kc.Job) error {
			sibling, _ = s.Launch(func(c *kc.Job) error { return c.Sleep(time.Hour) })
			_, err := s.Launch(func(*kc.Job) error { return errDisk })
			return err
		})
		fmt.Println("scope:", err)
		fmt.Println("sibling:", sibling.State())
		return nil // the failure was handled: j itself completes
	})
	// Output:
	// scope: disk full
	// sibling: Cancelled
}

// Async starts a child that produces a value; Await waits for it.
func ExampleAsync() {
	rt := kc.New(goroutine.New())
	defer rt.Close()

	_ = rt.Run(context.Background(), func(j *kc.Job) error {
		d, err := kc.Async(j, func(*kc.Job) (int, error) { return 6 * 7, nil })
		if err != nil {
			return err
		}
		v, err := d.Await(j)
		fmt.Println(v, err, d.State())
		return nil
	})
	// Output: 42 <nil> Completed
}

// WithTimeout cancels its scope when the deadline passes and reports a
// timeout, which is a failure (it does not match ErrCancelled).
func ExampleJob_WithTimeout() {
	rt := kc.New(goroutine.New())
	defer rt.Close()

	_ = rt.Run(context.Background(), func(j *kc.Job) error {
		err := j.WithTimeout(10*time.Millisecond, func(s *kc.Job) error {
			return s.Sleep(time.Hour) // interrupted by the timeout
		})
		fmt.Println(errors.Is(err, kc.ErrTimeout), errors.Is(err, kc.ErrCancelled))
		return nil
	})
	// Output: true false
}

// Shield lets cleanup finish even though the job was cancelled.
func ExampleJob_Shield() {
	rt := kc.New(goroutine.New())
	defer rt.Close()

	err := rt.Run(context.Background(), func(j *kc.Job) error {
		j.Cancel(errors.New("shutting down"))
		fmt.Println("cancelled:", j.IsCancelled())
		// Shield refuses to start once the job is cancelled...
		fmt.Println("late shield:", j.Shield(func() error { return nil }) != nil)
		return j.Check()
	})
	fmt.Println(err)

	err = rt.Run(context.Background(), func(j *kc.Job) error {
		return j.Shield(func() error {
			j.Cancel(errors.New("shutting down"))
			// ...but inside one, cancellation waits: checkpoints pass and
			// Sleep runs to the end.
			fmt.Println("inside:", j.IsCancelled(), j.Sleep(time.Millisecond))
			return nil
		})
	})
	fmt.Println(err)
	// Output:
	// cancelled: true
	// late shield: true
	// kc: cancelled: shutting down
	// inside: false <nil>
	// kc: cancelled: shutting down
}

// A cancelled nursery ends as soon as its children are done: it needs no
// Close, so the parent can Join it.
func ExampleJob_Open_cancel() {
	rt := kc.New(goroutine.New())
	defer rt.Close()

	_ = rt.Run(context.Background(), func(j *kc.Job) error {
		n, _ := j.Open()
		n.Launch(func(c *kc.Job) error { return c.Sleep(time.Hour) })
		n.Cancel(nil)
		fmt.Println("Join:", n.Join(j))
		fmt.Println("nursery:", n.State())
		return nil
	})
	// Output:
	// Join: kc: cancelled
	// nursery: Cancelled
}

// A job that waits for itself, or for an ancestor that waits for it, gets
// ErrWaitCycle at once instead of waiting forever.
func ExampleErrWaitCycle() {
	rt := kc.New(goroutine.New())
	defer rt.Close()

	_ = rt.Run(context.Background(), func(j *kc.Job) error {
		c, _ := j.Launch(func(c *kc.Job) error { return j.Join(c) }) // a child joins its parent
		err := c.Join(j)
		fmt.Println(err, errors.Is(err, kc.ErrWaitCycle))
		return nil
	})
	// Output: kc: wait for itself or an ancestor true
}
