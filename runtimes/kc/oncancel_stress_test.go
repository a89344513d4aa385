package kc_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// stressHook is one OnCancel callback of TestOnCancelStress and what was
// seen of it.
type stressHook struct {
	job         *kc.Job
	registering atomic.Bool  // OnCancel has not returned: the call may be at once, on the registrant
	runs        atomic.Int32 // calls of the callback
	late        atomic.Bool  // it ran while its job was terminal, and not at once
	stop        atomic.Pointer[func() bool]
	stopped     atomic.Bool // its stop reported true
}

// TestOnCancelStress races OnCancel registrations (from goroutines of
// their own), stops, Cancels of children and of their nursery, and the
// bodies' ends, with callbacks that return, panic or call runtime.Goexit,
// on every registered backend. Every job ends cancelled, so each callback
// must run exactly once unless its stop reported true, and then never; a
// callback that a walk runs must find its job not yet terminal (no
// callback outlives its job); the runtime must close with its counters
// balanced and no goroutine left.
func TestOnCancelStress(t *testing.T) {
	testutil.NoLeak(t)
	const rounds, kids, hooks = 60, 4, 12
	for _, name := range runtimes.Names() {
		t.Run(name, func(t *testing.T) {
			rt, err := runtimes.New(name)
			if err != nil {
				t.Fatal(err)
			}
			testutil.Watchdog(t, 30*time.Second, func() {
				for round := range rounds {
					if err := onCancelStressRound(rt, round, kids, hooks); err != nil {
						t.Errorf("round %d: %v", round, err)
						return
					}
				}
				if err := rt.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			checkTotals(t, rt, false)
		})
	}
}

func onCancelStressRound(rt *kc.Runtime, round, kids, nhooks int) error {
	var hs []*stressHook
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			n, err := s.Open()
			if err != nil {
				return err
			}
			jobs := []*kc.Job{n}
			for range kids {
				c, err := n.Launch(func(c *kc.Job) error { return c.Sleep(time.Hour) })
				if err != nil {
					return err
				}
				jobs = append(jobs, c)
			}
			var wg sync.WaitGroup
			for i := range nhooks {
				h := &stressHook{job: jobs[(round+i)%len(jobs)]}
				hs = append(hs, h)
				wg.Add(2)
				register := func() {
					h.registering.Store(true)
					stop := h.job.OnCancel(func() {
						h.runs.Add(1)
						if !h.registering.Load() && h.job.State().Terminal() {
							h.late.Store(true)
						}
						switch i % 4 {
						case 1:
							panic("hook")
						case 2:
							runtime.Goexit()
						}
					})
					h.stop.Store(&stop)
					h.registering.Store(false)
				}
				if i%2 == 0 { // before the Cancels: a walk claims it
					register()
					wg.Done()
				} else {
					go func() { // racing the Cancels; a call at once may panic or Goexit here
						defer wg.Done()
						defer func() {
							recover()
							if h.stop.Load() == nil { // the call at once ended OnCancel: nothing to stop
								none := func() bool { return false }
								h.stop.Store(&none)
							}
						}()
						register()
					}()
				}
				go func() { // stops, once registered, on every third hook
					defer wg.Done()
					if i%3 != 0 {
						return
					}
					for h.stop.Load() == nil {
						runtime.Gosched()
					}
					h.stopped.Store((*h.stop.Load())())
				}()
			}
			// Cancel a child, then the nursery, while the above run.
			jobs[1+round%kids].Cancel(nil)
			n.Cancel(nil)
			wg.Wait()
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("Run: %v", err)
	}
	for i, h := range hs {
		runs := h.runs.Load()
		switch {
		case h.stopped.Load() && runs != 0:
			return fmt.Errorf("hook %d: stop reported true, and the callback ran %d times", i, runs)
		case !h.stopped.Load() && runs != 1:
			return fmt.Errorf("hook %d on a cancelled job: ran %d times; want once", i, runs)
		case h.late.Load():
			return fmt.Errorf("hook %d: a walk ran it after its job was terminal", i)
		}
	}
	return nil
}
