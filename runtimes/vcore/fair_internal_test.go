package vcore

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestInboxNotStarvedByNext checks spec 05's fairness rule for a core's
// inbox: a task that keeps launching its successor keeps its core's next
// slot full (each successor goes there, and poll looks at the slot before
// the inbox), and a task launched from outside, which goes to the inbox,
// must still run soon: every fairEvery-th poll takes the inbox before the
// next slot, so the chain runs at most about fairEvery more tasks first.
// One core, and no retakes (noRetake). Without the rule for the inbox,
// the task would wait until the OS descheduled the owner's thread across
// two sysmon ticks, so that moveStaleNext emptied the slot, or, where that
// never happens, for ever.
func TestInboxNotStarvedByNext(t *testing.T) {
	if !regByG {
		t.Skip("the next slot needs goroutine registry keys")
	}
	testutil.NoLeak(t)
	ex, err := New(Workers(1), noRetake)
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(ex)
	defer rt.Close()
	const bound = 10 * fairEvery // chain tasks run after the push, at most
	testutil.Watchdog(t, 10*time.Second, func() {
		var stop atomic.Bool
		var gens atomic.Int64
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			n, err := j.Open()
			if err != nil {
				return err
			}
			ran, err := kc.NewChan[int64](1) // the chain tasks run between the push and the run
			if err != nil {
				return err
			}
			launch := func() {
				var pushed atomic.Int64
				pushed.Store(-1)
				if _, err := n.Launch(func(*kc.Job) error {
					for pushed.Load() < 0 { // Launch returns just after the push
						runtime.Gosched()
					}
					ran.TrySend(gens.Load() - pushed.Load())
					return nil
				}); err != nil {
					t.Error(err)
					ran.TrySend(0)
					return
				}
				pushed.Store(gens.Load())
			}
			var chain kc.Func
			chain = func(*kc.Job) error {
				if gens.Add(1) == 1000 {
					go launch() // from outside: to the inbox
				}
				if stop.Load() {
					return nil
				}
				// From the core's owner: to its next slot. Refused once
				// AwaitAll has closed n, which ends the chain too.
				if _, err := n.Launch(chain); err != nil && !errors.Is(err, kc.ErrClosed) {
					return err
				}
				return nil
			}
			if _, err := n.Launch(chain); err != nil {
				return err
			}
			behind, err := ran.Recv(j) // a kc wait: the root gives up the core
			stop.Store(true)
			if err != nil {
				return err
			}
			if behind > bound {
				t.Errorf("a task launched from outside ran after %d tasks of a chain that keeps the next slot full; want at most %d", behind, bound)
			}
			return n.AwaitAll(j)
		})
		if err != nil {
			t.Error(err)
		}
	})
}
