package kc_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestBackendsHoldsAndLazyCancel runs the scenarios of this package's lazy
// cancellation, hold counting and batching tests on every registered
// backend (stealing and vcore run tasks with Task.RunOn, batching releases
// in a kc.Worker per worker goroutine; goroutine runs each with Task.Run):
// each must end every job exactly once, count each cancellation once and
// leave no goroutine behind.
func TestBackendsHoldsAndLazyCancel(t *testing.T) {
	testutil.NoLeak(t)
	for _, name := range runtimes.Names() {
		t.Run(name, func(t *testing.T) {
			rt, err := runtimes.New(name)
			if err != nil {
				t.Fatal(err)
			}
			t.Run("lazy-fanout", func(t *testing.T) { lazyFanout(t, rt) })
			t.Run("waitall", func(t *testing.T) { waitAllScenario(t, rt) })
			t.Run("batch", func(t *testing.T) { batchScenario(t, rt) })
			t.Run("nursery-stress", func(t *testing.T) { nurseryStress(t, rt, 10) })
			t.Run("listing-race", func(t *testing.T) { listingRace(t, rt, 50) })
			testutil.Watchdog(t, 30*time.Second, func() { rt.Close() })
			checkTotals(t, rt, true)

			rt, err = runtimes.New(name)
			if err != nil {
				t.Fatal(err)
			}
			t.Run("goexit", func(t *testing.T) { goexitScenario(t, rt) })
			testutil.Watchdog(t, 30*time.Second, func() { rt.Close() })
			checkTotals(t, rt, false)
		})
	}
}

// lazyFanout cancels a root, from outside the runtime, while its children
// (unlisted: they only poll IsCancelled) run or wait to start: Run returns
// the cause and every child ends Cancelled with it.
func lazyFanout(t *testing.T, rt *kc.Runtime) {
	cause := errors.New("root cancelled")
	var kids []*kc.Job
	started := make(chan struct{}, 32)
	roots := make(chan *kc.Job, 1)
	testutil.Watchdog(t, 30*time.Second, func() {
		errc := runIn(rt, func(r *kc.Job) error {
			for range 32 {
				c, err := r.Launch(func(c *kc.Job) error {
					started <- struct{}{}
					for !c.IsCancelled() {
						runtime.Gosched()
					}
					return nil
				})
				if err != nil {
					return err
				}
				kids = append(kids, c)
			}
			roots <- r
			return nil
		})
		r := <-roots
		<-started
		r.Cancel(cause)
		if err := <-errc; !errors.Is(err, kc.ErrCancelled) || !errors.Is(err, cause) {
			t.Errorf("Run = %v; want ErrCancelled wrapping the cause", err)
		}
	})
	for i, c := range kids {
		if c.State() != kc.Cancelled || !errors.Is(c.Result(), cause) {
			t.Errorf("child %d: %v, %v; want Cancelled with the cause", i, c.State(), c.Result())
		}
	}
}

// batchScenario runs many short children of a few parents, nested two
// deep, and checks that every body ran once and the nursery completed;
// Stats are checked by the caller once the runtime is closed.
func batchScenario(t *testing.T, rt *kc.Runtime) {
	const parents, kids = 16, 200
	var ran atomic.Int64
	testutil.Watchdog(t, 30*time.Second, func() {
		err := rt.Run(context.Background(), func(root *kc.Job) error {
			n, err := root.Open()
			if err != nil {
				return err
			}
			for range parents {
				n.Launch(func(p *kc.Job) error {
					for range kids {
						d, err := kc.Async(p, func(*kc.Job) (int, error) { ran.Add(1); return 1, nil })
						if err != nil {
							return err
						}
						_ = d
					}
					return nil
				})
			}
			return n.AwaitAll(root)
		})
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	if n := ran.Load(); n != parents*kids {
		t.Errorf("%d bodies ran; want %d", n, parents*kids)
	}
}

// goexitScenario: a body that calls runtime.Goexit among many short
// siblings fails its job with ErrGoexit, and its supervisor nursery still
// completes (on stealing, the worker's deferred Flush drops the batched
// releases of the siblings that ran before it on that worker).
func goexitScenario(t *testing.T, rt *kc.Runtime) {
	var g *kc.Job
	testutil.Watchdog(t, 30*time.Second, func() {
		err := rt.Run(context.Background(), func(root *kc.Job) error {
			n, err := root.Open(kc.Supervisor())
			if err != nil {
				return err
			}
			for i := range 400 {
				if i == 200 {
					g, _ = n.Launch(func(*kc.Job) error { runtime.Goexit(); return nil })
					continue
				}
				n.Launch(func(*kc.Job) error { return nil })
			}
			return n.AwaitAll(root)
		})
		if err != nil {
			t.Errorf("Run = %v; want nil (the nursery is a supervisor)", err)
		}
	})
	if g.State() != kc.Failed || !errors.Is(g.Result(), kc.ErrGoexit) {
		t.Errorf("Goexit child: %v, %v; want Failed with ErrGoexit", g.State(), g.Result())
	}
}
