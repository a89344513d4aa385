package stealing_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
	"github.com/kcbench/kcbench/runtimes/stealing"
)

// A body that yields goes to the back of the line: on a single worker with
// no monitor rescue (MaxExtra(0)), one Yield runs the tasks queued on its
// P before the body goes on, except that the fairness tick (every 61st
// look for work) takes the yield list first, so k < 61 tasks take at most
// two Yields. With runtime.Gosched instead, the loop below would never
// end: the only worker would keep running the yielder.
func TestYieldRunsQueuedTasks(t *testing.T) {
	if !goruntime.GOK {
		t.Skip("no goroutine identities on this architecture: Yield is runtime.Gosched")
	}
	testutil.NoLeak(t)
	_, rt := newExecutorRuntime(t, stealing.Workers(1), stealing.MaxExtra(0))
	defer rt.Close()
	const k = 50
	testutil.Watchdog(t, 30*time.Second, func() {
		for round := range 50 {
			var done atomic.Int32
			yields := 0
			err := rt.Run(context.Background(), func(j *kc.Job) error {
				for range k {
					if _, err := j.Launch(func(*kc.Job) error { done.Add(1); return nil }); err != nil {
						return err
					}
				}
				for done.Load() < k {
					if err := j.Yield(); err != nil {
						return err
					}
					yields++
				}
				return nil
			})
			if err != nil {
				t.Fatalf("round %d: Run: %v", round, err)
			}
			if yields < 1 || yields > 2 {
				t.Fatalf("round %d: %d yields until %d queued children ran; want 1 or 2", round, yields, k)
			}
		}
	})
}

// Yield from a goroutine that is not a loop coroutine (one a body started)
// is runtime.Gosched: it returns on that goroutine, and the job's
// cancellation is still reported.
func TestYieldOffCoroutine(t *testing.T) {
	testutil.NoLeak(t)
	_, rt := newExecutorRuntime(t)
	defer rt.Close()
	testutil.Watchdog(t, 30*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			if _, err := j.Launch(func(*kc.Job) error { return nil }); err != nil {
				return err
			}
			errc := make(chan error, 2)
			go func() {
				errc <- j.Yield()
				j.Cancel(nil)
				errc <- j.Yield()
			}()
			if err := <-errc; err != nil {
				t.Errorf("Yield off the coroutine: %v; want nil", err)
			}
			if err := <-errc; err == nil {
				t.Errorf("Yield off the coroutine after Cancel: nil; want the cancellation")
			}
			return nil
		})
		if err == nil {
			t.Errorf("Run of a cancelled root: nil; want the cancellation")
		}
	})
}

// With nothing queued, Yield still lets the other goroutines of the
// process run (runtime.Gosched), as on a plain goroutine: at GOMAXPROCS=1,
// a body that polls with Yield for a flag a goroutine it just started
// sets sees it after a Yield or two. A Yield that does nothing when no
// task is queued keeps the only P until the Go runtime preempts the poller
// or its thread's sched_yield lets the P go: thousands of Yields. The test
// counts Yields, not time, so a loaded machine does not fail it: at most
// 10 rounds of 200 may take more than yieldPolls.
func TestYieldLetsGoroutinesRun(t *testing.T) {
	const yieldPolls = 100
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	testutil.NoLeak(t)
	_, rt := newExecutorRuntime(t, stealing.Workers(1))
	defer rt.Close()
	testutil.Watchdog(t, 30*time.Second, func() {
		slow, worst := 0, 0
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			for range 200 {
				var flag atomic.Bool
				go flag.Store(true)
				polls := 0
				for !flag.Load() {
					if err := j.Yield(); err != nil {
						return err
					}
					polls++
				}
				if polls > yieldPolls {
					slow++
					worst = max(worst, polls)
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		if slow > 10 {
			t.Errorf("polling with Yield for a flag a goroutine sets, at GOMAXPROCS=1: %d of 200 rounds took over %d Yields (at most %d); want at most 10", slow, yieldPolls, worst)
		}
	})
}
