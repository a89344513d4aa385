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
	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestLeaseReleaseRunsNoCallbacks guards DESIGN's Lease rule: the release
// that lets a job finish never runs user code on the releasing goroutine.
// Here that release finishes a child whose body failed while the lease was
// held, and the failure cancels an ancestor with an OnCancel callback: the
// parent itself ("parent"), or, through a parent that has failed (its own
// callback panicked) and that the release finishes Failed, the grandparent
// ("grandparent"). The callback must run
// once, on another goroutine, while its job is not yet terminal (its walk
// holds it), and the failure must still cancel the child's sibling (in
// "grandparent", the parent's cancellation did that first), end the jobs
// Failed and balance the counters, on every backend.
func TestLeaseReleaseRunsNoCallbacks(t *testing.T) {
	testutil.NoLeak(t)
	boom, parentErr := errors.New("boom"), errors.New("the parent fails too")
	for _, name := range runtimes.Names() {
		for _, scenario := range []string{"parent", "grandparent"} {
			t.Run(name+"/"+scenario, func(t *testing.T) {
				rt, err := runtimes.New(name)
				if err != nil {
					t.Fatal(err)
				}
				defer rt.Close()
				var (
					releaser, caller atomic.Int64
					calls            atomic.Int32
					stateInCallback  atomic.Value
					sibling          *kc.Job
				)
				testutil.Watchdog(t, 10*time.Second, func() {
					err = rt.Run(context.Background(), func(root *kc.Job) error {
						relc := make(chan func(), 1)
						// failing launches the child that takes the lease and
						// fails while holding it, and a sibling that only a
						// cancellation ends.
						failing := func(p *kc.Job) (*kc.Job, error) {
							c, err := p.Launch(func(c *kc.Job) error {
								rel, err := c.Lease()
								if err != nil {
									return err
								}
								relc <- rel
								return boom
							})
							if err != nil {
								return nil, err
							}
							sibling, err = p.Launch(func(s *kc.Job) error { return s.Sleep(time.Hour) })
							return c, err
						}
						watched := root // the job whose callback must not run on the releaser
						var c *kc.Job
						switch scenario {
						case "parent":
							p, err := root.Open()
							if err != nil {
								return err
							}
							if c, err = failing(p); err != nil {
								return err
							}
							watched = p
						case "grandparent":
							// p fails first, by a callback of its own that
							// panics, run by its walk's hookTask, which this
							// body waits for. p, held by c's lease, ends only
							// on the release, which finishes it Failed.
							p, err := root.Open()
							if err != nil {
								return err
							}
							if c, err = failing(p); err != nil {
								return err
							}
							for c.State() != kc.Cancelling {
								runtime.Gosched()
							}
							p.OnCancel(func() { panic(parentErr) })
							p.Cancel(nil)
							sibling.Join(nil) // so that c's lease is p's last hold
							for len(p.Errors()) == 0 {
								if err := root.Yield(); err != nil {
									return err
								}
							}
							if err := p.Errors(); len(err) != 1 || !errors.Is(err[0], parentErr) {
								t.Errorf("the parent's failures before the release: %v; want its callback's panic", err)
							}
						}
						watched.OnCancel(func() {
							caller.Store(goroutineID())
							stateInCallback.Store(watched.State())
							calls.Add(1)
						})
						rel := <-relc
						for c.State() != kc.Cancelling {
							runtime.Gosched()
						}
						var wg sync.WaitGroup
						wg.Add(1)
						go func() { // a plain goroutine drops the lease
							defer wg.Done()
							releaser.Store(goroutineID())
							rel()
						}()
						wg.Wait()
						if st := c.State(); st != kc.Failed {
							t.Errorf("the child, once its lease is released: %v; want Failed", st)
						}
						return nil
					})
				})
				want := boom
				if scenario == "grandparent" {
					want = parentErr // p's first failure: its callback's panic
				}
				if !errors.Is(err, want) {
					t.Errorf("Run = %v; want %v", err, want)
				}
				if n := calls.Load(); n != 1 {
					t.Fatalf("the OnCancel callback ran %d times; want once", n)
				}
				if r, c := releaser.Load(), caller.Load(); r == c {
					t.Errorf("the OnCancel callback ran on the goroutine that released the lease (goroutine %d)", r)
				}
				if st := stateInCallback.Load().(kc.State); st.Terminal() {
					t.Errorf("the callback's job was %v when it ran; want it not terminal (no callback outlives its job)", st)
				}
				if scenario == "parent" {
					wantCancelledBy(t, "the failing child's sibling", sibling, boom)
				} else if st := sibling.State(); st != kc.Cancelled {
					t.Errorf("the failing child's sibling: %v; want Cancelled", st)
				}
				rt.Close()
				checkTotals(t, rt, false)
			})
		}
	}
}

// goroutineID returns the calling goroutine's id, from runtime.Stack.
func goroutineID() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)] // "goroutine 123 [running]:..."
	var id int64
	for _, c := range b[len("goroutine "):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + int64(c-'0')
	}
	return id
}
