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

// TestLazyStateNeverCancellingThenCompleted guards the state machine as
// observers see it through the lazy path: once State reported Cancelling
// (or IsCancelled reported true) for an unlisted child, because its
// parent's walk had begun, the child must not end Completed: Cancelling
// leads only to Failed or Cancelled. Children end at about the moment their
// parent is cancelled while two goroutines poll their State and
// IsCancelled; a child that ends on the lock-free fast path after its
// end-of-body check missed the parent's down flag, but after an observer
// saw that flag, breaks it; so does a State or IsCancelled that pairs a
// stale load of the child's state word (not yet terminal) with a fresh
// load of the parent's flag. Observers spin without yielding, so that the
// Go scheduler preempts them at arbitrary points.
func TestLazyStateNeverCancellingThenCompleted(t *testing.T) {
	testutil.NoLeak(t)
	const kids = 64
	rt := kc.New(goroutine.New())
	cause := errors.New("parent cancelled")
	var bad, seenTotal, rounds int
	// Rounds until 400 or a budget of 3 s, whichever comes first (a race
	// build runs far fewer): the budget bounds the test, it asserts nothing.
	budget := time.Now().Add(3 * time.Second)
	for round := 0; round < 400 && time.Now().Before(budget); round++ {
		rounds++
		var cs [kids]*kc.Job
		var seen [kids]atomic.Bool
		testutil.Watchdog(t, 10*time.Second, func() {
			rt.Run(context.Background(), func(root *kc.Job) error {
				ready, goAll := make(chan struct{}), make(chan struct{})
				p, _ := root.Launch(func(p *kc.Job) error {
					for i := range cs {
						cs[i], _ = p.Launch(func(*kc.Job) error {
							<-goAll
							for range (i * 7) % 13 {
								runtime.Gosched()
							}
							return nil
						})
					}
					close(ready)
					return nil
				})
				<-ready
				var wg sync.WaitGroup
				for o := range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for {
							live := 0
							for i, c := range cs {
								st := c.State()
								if st == kc.Cancelling || (o == 1 && c.IsCancelled() && !st.Terminal()) {
									seen[i].Store(true)
								}
								if !st.Terminal() {
									live++
								}
							}
							if live == 0 {
								return
							}
						}
					}()
				}
				close(goAll)
				for range round % 17 {
					runtime.Gosched()
				}
				p.Cancel(cause)
				wg.Wait()
				return nil
			})
		})
		for i, c := range cs {
			if !seen[i].Load() {
				continue
			}
			seenTotal++
			if st := c.State(); st != kc.Cancelled {
				bad++
				if bad <= 5 {
					t.Errorf("round %d, child %d: observed Cancelling (or IsCancelled), then it ended %v; want Cancelled", round, i, st)
				}
			}
		}
	}
	t.Logf("%d rounds: %d children observed cancelling before they ended; %d of them ended otherwise", rounds, seenTotal, bad)
	if bad > 5 {
		t.Errorf("... %d such children in all", bad)
	}
	testutil.Watchdog(t, 10*time.Second, func() { rt.Close() })
	checkTotals(t, rt, true)
}

// TestOpenRacesBodyEnd guards the attach of a nursery made by Open against
// the end of its parent's body, which must close every nursery the body
// left open. Attach takes the hold by a CAS and lists the nursery after it,
// so the body's end may scan the child list between the two; then the
// attach must see the body done and close the nursery itself. Whichever
// side wins, Open either fails (ErrClosed, or ErrCancelled once the parent
// is terminal) or returns a nursery that is auto-closed and ends
// Completed, and the parent ends: a nursery left open hangs Run. A second
// nursery, opened by the body before, is closed by the body's end and
// widens the window. Open is called from a child of the parent and from a
// plain goroutine.
func TestOpenRacesBodyEnd(t *testing.T) {
	testutil.NoLeak(t)
	rt := kc.New(goroutine.New())
	var opened, refused int
	for round := range 20000 {
		fromChild := round%2 == 0
		got := make(chan *kc.Job, 1)
		roots := make(chan *kc.Job, 1)
		errc := runIn(rt, func(root *kc.Job) error {
			roots <- root
			if _, err := root.Open(); err != nil {
				return err
			}
			open := func() {
				n, err := root.Open()
				if err != nil && !errors.Is(err, kc.ErrClosed) && !errors.Is(err, kc.ErrCancelled) {
					t.Errorf("Open racing the parent's body end: %v; want nil, ErrClosed or ErrCancelled", err)
				}
				got <- n
			}
			if fromChild {
				root.Launch(func(*kc.Job) error { open(); return nil })
			} else {
				go open()
			}
			for range round % 13 {
				runtime.Gosched()
			}
			return nil
		})
		select {
		case err := <-errc:
			if err != nil {
				t.Errorf("round %d: Run = %v", round, err)
			}
		case <-time.After(10 * time.Second):
			root, n := <-roots, <-got
			t.Fatalf("round %d (Open from a %s): Run hung: parent %v, WaitAll(0) %v; the nursery it opened: %v (nil: refused)",
				round, map[bool]string{true: "child", false: "goroutine"}[fromChild], root.State(), root.WaitAll(0), n)
		}
		n := <-got
		if n == nil {
			refused++
			continue
		}
		opened++
		if st := n.State(); st != kc.Completed {
			t.Errorf("round %d: a nursery opened while its parent's body ended is %v after the parent ended; want Completed", round, st)
		}
	}
	t.Logf("%d nurseries opened, %d refused", opened, refused)
	testutil.Watchdog(t, 10*time.Second, func() { rt.Close() })
	checkTotals(t, rt, true)
}

// TestDoneOnFinishedChildRetainsNothing guards the listing of a child on
// its parent's child list against terminal children: a listed child is
// unlinked when it ends, so a child that asks for Done only after it ended
// must not be linked at all, or the parent's list keeps every such child
// (and walks it on cancel) for as long as the parent lives. Children that
// ended are joined, asked for Done (or not: the control), and dropped; while
// the parent still runs, at least nine in ten of them must be collected.
func TestDoneOnFinishedChildRetainsNothing(t *testing.T) {
	testutil.NoLeak(t)
	const n = 2000
	for _, callDone := range []bool{false, true} {
		rt := kc.New(goroutine.New())
		var collected atomic.Int64
		testutil.Watchdog(t, 30*time.Second, func() {
			rt.Run(context.Background(), func(root *kc.Job) error {
				for range n {
					c, err := root.Launch(func(*kc.Job) error { return nil })
					if err != nil {
						return err
					}
					c.Join(nil)
					if callDone && !isClosed(c.Done()) {
						t.Error("Done of a terminal child is not closed")
					}
					runtime.AddCleanup(c, func(*atomic.Int64) { collected.Add(1) }, &collected)
				}
				for budget := time.Now().Add(5 * time.Second); collected.Load() < n*9/10 && time.Now().Before(budget); {
					runtime.GC()
					time.Sleep(time.Millisecond)
				}
				if got := collected.Load(); got < n*9/10 {
					t.Errorf("Done called on each after it ended: %v; %d of %d finished, dropped children collected while their parent runs; want at least %d",
						callDone, got, n, n*9/10)
				}
				return nil
			})
		})
		rt.Close()
		checkTotals(t, rt, true)
	}
}
