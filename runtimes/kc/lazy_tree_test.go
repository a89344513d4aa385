package kc_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestLazyTimeoutReachesUnlistedChild guards that a WithTimeout scope's own
// cancellation reaches its unlisted children through the down flag: a child
// busy-polling IsCancelled sees it, its Check wraps ErrTimeout (the scope's
// cause), it ends Cancelled, and WithTimeout returns a TimeoutError.
func TestLazyTimeoutReachesUnlistedChild(t *testing.T) {
	testutil.NoLeak(t)
	rt := kc.New(goroutine.New())
	var c *kc.Job
	var check error
	var scopeErr error
	testutil.Watchdog(t, 10*time.Second, func() {
		rt.Run(context.Background(), func(root *kc.Job) error {
			scopeErr = root.WithTimeout(20*time.Millisecond, func(s *kc.Job) error {
				c, _ = s.Launch(func(c *kc.Job) error {
					for !c.IsCancelled() {
						runtime.Gosched()
					}
					check = c.Check()
					return nil
				})
				return nil
			})
			return nil
		})
	})
	var te *kc.TimeoutError
	if !errors.As(scopeErr, &te) || errors.Is(scopeErr, kc.ErrCancelled) {
		t.Errorf("WithTimeout = %v; want a *TimeoutError that is not ErrCancelled", scopeErr)
	}
	if !errors.Is(check, kc.ErrCancelled) || !errors.Is(check, kc.ErrTimeout) {
		t.Errorf("child's Check = %v; want ErrCancelled wrapping ErrTimeout", check)
	}
	wantCancelledBy(t, "child of the timed-out scope", c, kc.ErrTimeout)
	rt.Close()
	checkTotals(t, rt, true)
}

// TestLazyCancelDeepChain guards propagation through a chain of jobs whose
// bodies each launched the next and returned (each is listed on its parent
// because it has a child; the leaf is not): cancelling the top reaches the
// leaf, which polls IsCancelled only, and every job of the chain ends
// Cancelled with the top's cause, each counted once.
func TestLazyCancelDeepChain(t *testing.T) {
	testutil.NoLeak(t)
	const depth = 64
	rt := kc.New(goroutine.New())
	cause := errors.New("top cancelled")
	chain := make([]*kc.Job, depth)
	var leafCheck error
	testutil.Watchdog(t, 10*time.Second, func() {
		err := rt.Run(context.Background(), func(root *kc.Job) error {
			leafUp := make(chan struct{})
			var level func(i int) kc.Func
			level = func(i int) kc.Func {
				return func(j *kc.Job) error {
					chain[i] = j
					if i == depth-1 {
						close(leafUp)
						for !j.IsCancelled() {
							runtime.Gosched()
						}
						leafCheck = j.Check()
						return nil
					}
					_, err := j.Launch(level(i + 1))
					return err
				}
			}
			top, err := root.Launch(level(0))
			if err != nil {
				return err
			}
			<-leafUp
			for i, j := range chain[:depth-1] {
				for j.State() == kc.Active {
					runtime.Gosched() // its body launched the next level and is returning
				}
				if st := j.State(); st != kc.Closing {
					t.Errorf("level %d before the cancel: %v; want Closing (body done, child running)", i, st)
				}
			}
			top.Cancel(cause)
			return nil
		})
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	if !errors.Is(leafCheck, cause) {
		t.Errorf("leaf Check = %v; want the top's cause", leafCheck)
	}
	for i, j := range chain {
		if j.State() != kc.Cancelled || !errors.Is(j.Result(), cause) {
			t.Errorf("level %d: %v, %v; want Cancelled with the top's cause", i, j.State(), j.Result())
		}
	}
	rt.Close()
	if s := checkTotals(t, rt, true); s.CancellationsRequested != depth {
		t.Errorf("CancellationsRequested = %d; want %d (each job of the chain once)", s.CancellationsRequested, depth)
	}
}

// TestLazyCancelWideFanout guards the lazy path at scale, against the hold
// count: a parent with many unlisted children, some finished, some running
// (polling) and some blocked outside the runtime, is cancelled; the parent
// ends only after all of them, exactly once, and the counters add up.
func TestLazyCancelWideFanout(t *testing.T) {
	testutil.NoLeak(t)
	const n = 300
	rt := kc.New(goroutine.New())
	cause := errors.New("fanout cancelled")
	kids := make([]*kc.Job, n)
	testutil.Watchdog(t, 20*time.Second, func() {
		rt.Run(context.Background(), func(root *kc.Job) error {
			var running sync.WaitGroup
			gate := make(chan struct{})
			ready := make(chan struct{})
			p, _ := root.Launch(func(p *kc.Job) error {
				defer close(ready)
				for i := range kids {
					var body kc.Func
					switch i % 3 {
					case 0:
						body = func(*kc.Job) error { return nil }
					case 1:
						running.Add(1)
						body = func(c *kc.Job) error {
							running.Done()
							for !c.IsCancelled() {
								runtime.Gosched()
							}
							return c.Check()
						}
					case 2:
						running.Add(1)
						body = func(*kc.Job) error { running.Done(); <-gate; return nil }
					}
					kids[i], _ = p.Launch(body)
				}
				return nil
			})
			<-ready
			for i := 0; i < n; i += 3 {
				kids[i].Join(nil)
			}
			running.Wait()
			p.Cancel(cause)
			if p.State().Terminal() {
				t.Error("parent terminal while blocked children hold it")
			}
			close(gate)
			if err := p.Join(nil); !errors.Is(err, cause) {
				t.Errorf("parent Join = %v; want the cause", err)
			}
			return nil
		})
	})
	for i, c := range kids {
		want := kc.Cancelled
		if i%3 == 0 {
			want = kc.Completed
		}
		if st := c.State(); st != want {
			t.Errorf("child %d: %v; want %v", i, st, want)
		}
	}
	rt.Close()
	s := checkTotals(t, rt, true)
	if want := uint64(1 + 2*n/3); s.CancellationsRequested != want {
		t.Errorf("CancellationsRequested = %d; want %d (parent and every unfinished child once)", s.CancellationsRequested, want)
	}
}
