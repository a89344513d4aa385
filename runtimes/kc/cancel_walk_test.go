package kc_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestCancelWalkMixedChildren cancels a nursery whose listed children are
// of every kind the cancel walk treats differently: leaves parked in Sleep
// (cancelled in one CAS and taken off the nursery's child list, after
// which each registers an OnCancel, which lists it on the nursery again),
// leaves with an OnCancel callback, children with a child of their own,
// and children holding a lease on themselves. Every job must end
// Cancelled with the cause, every callback run once, the nursery end, and
// the counters balance, on every backend, in every interleaving the
// children's start and the cancel happen to take.
func TestCancelWalkMixedChildren(t *testing.T) {
	testutil.NoLeak(t)
	cause := errors.New("walk cause")
	const kids = 200
	for _, name := range runtimes.Names() {
		t.Run(name, func(t *testing.T) {
			rt, err := runtimes.New(name)
			if err != nil {
				t.Fatal(err)
			}
			for round := range 5 {
				var started, hooks, wantHooks atomic.Int64
				var mu sync.Mutex
				jobs := make([]*kc.Job, 0, 2*kids)
				add := func(c *kc.Job) { mu.Lock(); jobs = append(jobs, c); mu.Unlock() }
				errc := runIn(rt, func(j *kc.Job) error {
					n, err := j.Open()
					if err != nil {
						return err
					}
					sleep := func(c *kc.Job) error {
						started.Add(1)
						return c.Sleep(time.Hour)
					}
					for i := range kids {
						var body kc.Func
						switch i % 4 {
						case 0: // a leaf; once cancelled it lists itself again
							body = func(c *kc.Job) error {
								err := sleep(c)
								wantHooks.Add(1)
								c.OnCancel(func() { hooks.Add(1) })
								return err
							}
						case 1: // a leaf with an OnCancel callback
							body = func(c *kc.Job) error {
								wantHooks.Add(1)
								c.OnCancel(func() { hooks.Add(1) })
								return sleep(c)
							}
						case 2: // a child with a child
							body = func(c *kc.Job) error {
								g, err := c.Launch(func(g *kc.Job) error { return g.Sleep(time.Hour) })
								if err == nil {
									add(g)
								}
								return sleep(c)
							}
						default: // a child held by a lease of its own
							body = func(c *kc.Job) error {
								release, err := c.Lease()
								if err != nil {
									return err
								}
								defer release()
								return sleep(c)
							}
						}
						c, err := n.Launch(body)
						if err != nil {
							return err
						}
						add(c)
					}
					// Let some or all of them park first (varies by round).
					for started.Load() < int64(round*kids/4) {
						if err := j.Yield(); err != nil {
							return err
						}
					}
					n.Cancel(cause)
					if err := n.AwaitAll(j); !errors.Is(err, kc.ErrCancelled) || !errors.Is(err, cause) {
						t.Errorf("round %d: nursery: AwaitAll = %v; want ErrCancelled wrapping the cause", round, err)
					}
					return nil
				})
				testutil.Watchdog(t, 30*time.Second, func() {
					if err := <-errc; err != nil {
						t.Errorf("round %d: Run: %v", round, err)
					}
				})
				for i, c := range jobs {
					if st := c.State(); st != kc.Cancelled {
						t.Errorf("round %d: job %d: State = %v; want Cancelled", round, i, st)
					}
				}
				if h, w := hooks.Load(), wantHooks.Load(); h != w {
					t.Errorf("round %d: %d OnCancel callbacks ran; want %d", round, h, w)
				}
			}
			testutil.Watchdog(t, 30*time.Second, func() { rt.Close() })
			checkTotals(t, rt, true)
		})
	}
}
