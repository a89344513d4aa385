package kc_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// The scenarios below take a runtime so that backends_test.go can run them
// on every registered backend too.

// childBodies are bodies of every kind the lazy path distinguishes: ones
// that stay unlisted (return at once, check, poll) and ones that list
// themselves on their parent at start (Sleep, Done, OnCancel, a child of
// their own). The listed ones end only when cancelled.
var childBodies = []kc.Func{
	func(*kc.Job) error { return nil },
	func(c *kc.Job) error { return c.Check() },
	func(c *kc.Job) error {
		for range 20 {
			if c.IsCancelled() {
				break
			}
			runtime.Gosched()
		}
		return nil
	},
	func(c *kc.Job) error { return c.Sleep(time.Hour) },
	func(c *kc.Job) error { <-c.Done(); return nil },
	func(c *kc.Job) error {
		fired := make(chan struct{})
		c.OnCancel(func() { close(fired) })
		<-fired
		return nil
	},
	func(c *kc.Job) error {
		_, err := c.Launch(func(g *kc.Job) error { return g.Sleep(time.Hour) })
		return err
	},
}

// nurseryStress launches from 8 goroutines into one nursery while another
// goroutine cancels it and (every other round) a third closes it. Every
// Launch either fails with ErrCancelled or ErrClosed, or its child ends
// terminal (Completed or Cancelled) by the time the nursery is; the
// nursery's outcome agrees with what Cancel returned.
func nurseryStress(t *testing.T, rt *kc.Runtime, rounds int) {
	cause := errors.New("stress")
	var total atomic.Int64
	defer func() { t.Logf("%d rounds, %d children launched", rounds, total.Load()) }()
	for round := range rounds {
		withClose := round%2 == 0
		testutil.Watchdog(t, 30*time.Second, func() {
			err := rt.Run(context.Background(), func(root *kc.Job) error {
				n, err := root.Open()
				if err != nil {
					return err
				}
				start := make(chan struct{})
				var wg sync.WaitGroup
				var mu sync.Mutex
				var launched []*kc.Job
				for g := range 8 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						for k := range 40 {
							c, err := n.Launch(childBodies[(g+k)%len(childBodies)])
							switch {
							case err == nil:
								mu.Lock()
								launched = append(launched, c)
								mu.Unlock()
							case errors.Is(err, kc.ErrCancelled), withClose && errors.Is(err, kc.ErrClosed):
							default:
								t.Errorf("Launch into a nursery being cancelled: %v", err)
							}
						}
					}()
				}
				var moved bool
				wg.Add(1)
				go func() { defer wg.Done(); <-start; runtime.Gosched(); moved = n.Cancel(cause) }()
				if withClose {
					wg.Add(1)
					go func() { defer wg.Done(); <-start; n.Close() }()
				}
				close(start)
				wg.Wait()
				total.Add(int64(len(launched)))
				err = n.AwaitAll(root)
				switch st := n.State(); {
				case moved && (st != kc.Cancelled || !errors.Is(err, cause)):
					t.Errorf("round %d: Cancel moved the nursery, then %v, AwaitAll %v; want Cancelled, the cause", round, st, err)
				case !moved && (st != kc.Completed || err != nil):
					t.Errorf("round %d: Cancel found the nursery done, then %v, AwaitAll %v; want Completed, nil", round, st, err)
				}
				for _, c := range launched {
					if st := c.State(); st != kc.Completed && st != kc.Cancelled {
						t.Errorf("round %d: a launched child is %v after its nursery ended %v", round, st, n.State())
					}
				}
				return nil
			})
			if err != nil {
				t.Errorf("Run = %v", err)
			}
		})
		if t.Failed() {
			return
		}
	}
}

// listingRace cancels a parent just as its children start and register
// what makes them listed (OnCancel, Sleep, Done, a channel Recv, a Select,
// Await and Join of a pending sibling, a child of their own): whichever
// side wins (the child's listing or the parent's walk), every child must be
// cancelled and woken. A lost one hangs the round.
func listingRace(t *testing.T, rt *kc.Runtime, rounds int) {
	cause := errors.New("listing race")
	for round := range rounds {
		var kids []*kc.Job
		testutil.Watchdog(t, 30*time.Second, func() {
			rt.Run(context.Background(), func(root *kc.Job) error {
				launched := make(chan struct{})
				p, _ := root.Launch(func(p *kc.Job) error {
					defer close(launched)
					ch, _ := kc.NewChan[int](0)
					blocker, _ := kc.Async(p, func(b *kc.Job) (int, error) { return 0, b.Sleep(time.Hour) })
					bodies := append(append([]kc.Func(nil), childBodies[3:]...), // Sleep, Done, OnCancel, Launch
						func(c *kc.Job) error { _, err := ch.Recv(c); return err },
						func(c *kc.Job) error { var v int; _, err := kc.Select(c, ch.RecvCase(&v)); return err },
						func(c *kc.Job) error { _, err := blocker.Await(c); return err },
						func(c *kc.Job) error { return blocker.Job().Join(c) },
					)
					kids = append(kids, blocker.Job())
					for _, b := range bodies {
						c, err := p.Launch(b)
						if err != nil {
							return err
						}
						kids = append(kids, c)
					}
					return nil
				})
				<-launched
				for range round % 4 {
					runtime.Gosched()
				}
				p.Cancel(cause)
				return nil
			})
		})
		if len(kids) != 9 {
			t.Fatalf("round %d: %d children launched; want 9", round, len(kids))
		}
		for i, c := range kids {
			if c.State() != kc.Cancelled || !errors.Is(c.Result(), cause) {
				t.Errorf("round %d, child %d: %v, %v; want Cancelled with the cause", round, i, c.State(), c.Result())
			}
		}
		if t.Failed() {
			return
		}
	}
}

// TestNurseryLaunchCancelCloseRace runs nurseryStress on goroutines, without
// and with a tracer (which lists every child, the other path), and checks
// that every job ended exactly once and no goroutine is left.
func TestNurseryLaunchCancelCloseRace(t *testing.T) {
	testutil.NoLeak(t)
	t.Run("plain", func(t *testing.T) {
		rt := kc.New(goroutine.New())
		nurseryStress(t, rt, 60)
		rt.Close()
		checkTotals(t, rt, true)
	})
	t.Run("traced", func(t *testing.T) {
		var mu sync.Mutex
		created, finalized := map[*kc.Job]int{}, map[*kc.Job]int{}
		rt := kc.New(goroutine.New(), kc.WithTracer(kc.TracerFunc(func(e kc.Event) {
			mu.Lock()
			defer mu.Unlock()
			switch e.Kind {
			case kc.EvJobCreate:
				created[e.Job]++
			case kc.EvJobFinalize:
				finalized[e.Job]++
			}
		})))
		nurseryStress(t, rt, 20)
		rt.Close()
		checkTotals(t, rt, true)
		mu.Lock()
		defer mu.Unlock()
		for j, n := range created {
			if n != 1 || finalized[j] != 1 {
				t.Errorf("job %p: %d create and %d finalize events; want 1 each", j, n, finalized[j])
			}
		}
		if len(finalized) != len(created) {
			t.Errorf("%d jobs finalized, %d created", len(finalized), len(created))
		}
	})
}

// TestListingRace runs listingRace on goroutines.
func TestListingRace(t *testing.T) {
	testutil.NoLeak(t)
	rt := kc.New(goroutine.New())
	listingRace(t, rt, 300)
	rt.Close()
	checkTotals(t, rt, true)
}
