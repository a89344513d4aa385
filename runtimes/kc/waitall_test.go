package kc_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// waitAllScenario checks WaitAll against the hold count: 0 polls (ErrAgain
// while children or leases hold the job, nil after), > 0 times out while
// they do, < 0 wakes when the last one goes (and not before: never while a
// child it waits for runs), also when it goes at the very moment the
// waiter registers, and for a nursery whose unlisted children are
// cancelled lazily. WaitAll never closes the job.
func waitAllScenario(t *testing.T, rt *kc.Runtime) {
	testutil.Watchdog(t, 30*time.Second, func() {
		err := rt.Run(context.Background(), func(root *kc.Job) error {
			gate := make(chan struct{})
			for range 10 {
				root.Launch(func(*kc.Job) error { <-gate; return nil })
			}
			if err := root.WaitAll(0); !errors.Is(err, kc.ErrAgain) {
				t.Errorf("WaitAll(0) with children running = %v; want ErrAgain", err)
			}
			if err := root.WaitAll(time.Millisecond); !errors.Is(err, kc.ErrTimeout) {
				t.Errorf("WaitAll(1ms) with children blocked = %v; want ErrTimeout", err)
			}
			go close(gate)
			if err := root.WaitAll(-1); err != nil {
				t.Errorf("WaitAll(-1) = %v; want nil", err)
			}
			if err := root.WaitAll(0); err != nil {
				t.Errorf("WaitAll(0) after WaitAll(-1) = %v; want nil", err)
			}

			rel, err := root.Lease()
			if err != nil {
				return err
			}
			if err := root.WaitAll(0); !errors.Is(err, kc.ErrAgain) {
				t.Errorf("WaitAll(0) with a lease held = %v; want ErrAgain", err)
			}
			go rel()
			if err := root.WaitAll(-1); err != nil {
				t.Errorf("WaitAll(-1) while the lease is released = %v", err)
			}

			// The last child ends while WaitAll registers; a release that
			// saw no holds left must not wake a waiter of a later round,
			// whose children still run.
			for i := range 500 {
				var kids []*kc.Job
				for range i % 3 {
					c, _ := root.Launch(func(*kc.Job) error { return nil })
					kids = append(kids, c)
				}
				if err := root.WaitAll(-1); err != nil {
					t.Errorf("round %d: WaitAll(-1) = %v", i, err)
				}
				for k, c := range kids {
					if st := c.State(); !st.Terminal() {
						t.Errorf("round %d: WaitAll(-1) returned while child %d is %v", i, k, st)
						return nil
					}
				}
				if err := root.WaitAll(0); err != nil {
					t.Errorf("round %d: WaitAll(0) right after WaitAll(-1) = %v; want nil", i, err)
					return nil
				}
			}

			// A nursery whose children are cancelled lazily, waited for
			// from a plain goroutine.
			n, _ := root.Open()
			started := make(chan struct{}, 64)
			for range 64 {
				n.Launch(func(c *kc.Job) error {
					started <- struct{}{}
					for !c.IsCancelled() {
						time.Sleep(10 * time.Microsecond)
					}
					return nil
				})
			}
			<-started
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := n.WaitAll(-1); err != nil {
					t.Errorf("nursery WaitAll(-1) = %v", err)
				}
			}()
			n.Cancel(errors.New("stop"))
			wg.Wait()
			if err := n.WaitAll(0); err != nil {
				t.Errorf("nursery WaitAll(0) after its children ended = %v", err)
			}
			if st := n.State(); st != kc.Cancelled {
				t.Errorf("cancelled nursery after WaitAll: %v; want Cancelled (a cancelled nursery ends with its last child, unclosed)", st)
			}
			return nil
		})
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}

// TestWaitAllPollAndWake runs waitAllScenario on goroutines.
func TestWaitAllPollAndWake(t *testing.T) {
	testutil.NoLeak(t)
	rt := kc.New(goroutine.New())
	waitAllScenario(t, rt)
	rt.Close()
	checkTotals(t, rt, true)
}
