package vcore

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// countResumes sets testHookResume, for the executor a test makes next, to
// count the resumes of contexts by their driver goroutine (direct) and by
// another context (nested), and clears it when the test ends. Set before
// the executor starts and cleared after it is closed (the caller closes it
// before returning), as testhooks.go asks. Where owners are goroutines it
// closes ex and skips the test.
func countResumes(t *testing.T, ex *Executor) (direct, nested *atomic.Int64) {
	t.Helper()
	if !ex.coro {
		ex.Close()
		t.Skip("owners are goroutines here (no goroutine identities): no contexts to resume")
	}
	direct, nested = new(atomic.Int64), new(atomic.Int64)
	testHookResume = func(n bool) {
		if n {
			nested.Add(1)
		} else {
			direct.Add(1)
		}
	}
	t.Cleanup(func() { testHookResume = nil })
	return direct, nested
}

// runRounds runs body in a Run on a runtime over ex under a watchdog, then
// closes both.
func runRounds(t *testing.T, ex *Executor, what func() string, body kc.Func) {
	t.Helper()
	rt := kc.New(ex)
	done := make(chan error, 1)
	go func() { done <- rt.Run(context.Background(), body) }()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s; %+v", what(), ex.Stats())
	}
	rt.Close()
	ex.Close()
}

// A body that Joins a child it launched into a nursery, again and again,
// on one core: each Join parks the body's context, a fresh owner runs the
// child, and the child's end makes the body ready, which that owner hands
// its core to. The owner's context, resumed by its driver, runs the body
// itself (driveNested), and when the body parks again it is the core's
// fresh owner once more: after the first round no context is resumed by
// the driver. With the driver doing every resume, each round takes two of
// its resumes (the fresh owner at the park, the body at the wake).
func TestJoinerResumedNested(t *testing.T) {
	testutil.NoLeak(t)
	ex, err := New(Workers(1), noRetake)
	if err != nil {
		t.Fatal(err)
	}
	direct, nested := countResumes(t, ex)
	const rounds = 2000
	var done atomic.Int64
	runRounds(t, ex, func() string { return fmt.Sprintf("%d of %d Joins done in 30 s", done.Load(), rounds) }, func(j *kc.Job) error {
		nur, err := j.Open()
		if err != nil {
			return err
		}
		for range rounds {
			c, err := nur.Launch(func(*kc.Job) error { return nil })
			if err != nil {
				return err
			}
			if err := c.Join(j); err != nil {
				return err
			}
			done.Add(1)
		}
		return nur.AwaitAll(j)
	})
	if d, n := direct.Load(), nested.Load(); n < rounds*9/10 || d > rounds/10 {
		t.Errorf("%d rounds of Launch and Join: %d resumes by the driver, %d nested; want at most %d and at least %d", rounds, d, n, rounds/10, rounds*9/10)
	}
}

// A mass wake, round after round, on one core: n children of one parent
// Await a deferred that completes after they have parked, so its end puts
// them all on the core's ready queue. The owner that takes the first hands
// it the core and runs it nested; its stint, once the child's task has
// ended, hands the core to the next, which goes back to that owner to run
// (a nested context never runs one itself), so the chain never stacks
// contexts under one another.
func TestReadyChainResumedNested(t *testing.T) {
	testutil.NoLeak(t)
	ex, err := New(Workers(1), noRetake)
	if err != nil {
		t.Fatal(err)
	}
	_, nested := countResumes(t, ex)
	const rounds, n = 50, 64
	var woken atomic.Int64
	runRounds(t, ex, func() string { return fmt.Sprintf("%d of %d awaits done in 30 s", woken.Load(), rounds*n) }, func(j *kc.Job) error {
		for range rounds {
			err := j.Scope(func(s *kc.Job) error {
				d, err := kc.Async(s, func(d *kc.Job) (int, error) { return 1, d.Sleep(time.Millisecond) })
				if err != nil {
					return err
				}
				for range n {
					if _, err := s.Launch(func(c *kc.Job) error {
						if v, err := d.Await(c); err != nil || v != 1 {
							return fmt.Errorf("Await: %v, %v; want 1, nil", v, err)
						}
						woken.Add(1)
						return nil
					}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if got := nested.Load(); got < rounds*n/2 {
		t.Errorf("%d rounds of %d awaiters woken together: %d nested resumes; want at least %d", rounds, n, got, rounds*n/2)
	}
}
