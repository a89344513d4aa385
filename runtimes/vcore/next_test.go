package vcore

import (
	"context"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestNextSlotKeepsAwaitedChildren checks that children their parent
// awaits at once go through the core's next slot, not the inboxes: of n
// such children only a few reach an inbox (the ones that found the slot
// still holding a live child), and every one still counts as ended, so
// Close returns with nothing active.
//
// The bound holds while the parent keeps its core, so sysmon may retake
// no core here (noRetake). With the default, a loaded machine can still
// retake the parent's core, rarely: a parent running its children inline
// moves no heartbeat, and once the OS deschedules its thread between a
// Spawn and the Await for two sysmon ticks, moveStaleNext sends the child
// in the slot to the global queue; if no other owner has taken it by the
// next tick, that tick's retake finds work waiting behind a core whose
// beat is old. The parent then runs without its core and its spawns may
// go to the inboxes, by design.
func TestNextSlotKeepsAwaitedChildren(t *testing.T) {
	if !regByG {
		t.Skip("the next slot needs goroutine registry keys")
	}
	testutil.NoLeak(t)
	const n = 5000
	pushed, st := awaitThroughNext(t, n)
	if a := st.Active; a != 0 {
		t.Errorf("Stats.Active after Close: got %d; want 0", a)
	}
	if st.Retakes != 0 {
		t.Errorf("sysmon retook a core %d times; want none (noRetake)", st.Retakes)
	}
	if pushed > n/10 {
		t.Errorf("%d awaited children: %d went through an inbox; want at most %d (steals %d)", n, pushed, n/10, st.Steals)
	}
}

// noRetake is an option for tests that keeps sysmon from retaking a core
// (and so from starting helpers): a core counts as stuck only after an
// hour without a heartbeat, far beyond any test's watchdog. Sysmon still
// moves a stale next-slot task to the global queue (moveStaleNext).
func noRetake(c *config) error {
	c.staleAfter = time.Hour
	return nil
}

// awaitThroughNext runs awaitOnes with n children on a fresh two-core
// runtime on which sysmon retakes no core (noRetake) and returns how
// many tasks went through an inbox and the executor's counters after
// Close.
func awaitThroughNext(t *testing.T, n int) (pushed uint64, st Stats) {
	ex, err := New(Workers(2), noRetake)
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(ex)
	testutil.Watchdog(t, 10*time.Second, func() {
		err = rt.Run(context.Background(), func(j *kc.Job) error {
			return awaitOnes(t, j, n, nil)
		})
		if err != nil {
			t.Error(err)
		}
		rt.Close()
	})
	for i := range ex.cores {
		pushed += ex.cores[i].inbox.tail.Load()
	}
	return pushed, ex.Stats()
}

// TestNextSlotStuckParent checks that a child left in the next slot by a
// parent that then blocks where the runtime cannot see (a Go channel the
// child would close) still runs: an idle owner takes it before it sleeps,
// or sysmon moves it to the global queue or retakes the core. With one
// core only sysmon can.
func TestNextSlotStuckParent(t *testing.T) {
	for _, workers := range []int{1, 2} {
		ex, err := New(Workers(workers))
		if err != nil {
			t.Fatal(err)
		}
		rt := kc.New(ex)
		testutil.Watchdog(t, 10*time.Second, func() {
			for range 20 {
				err := rt.Run(context.Background(), func(j *kc.Job) error {
					ch := make(chan struct{})
					if _, err := j.Launch(func(*kc.Job) error { close(ch); return nil }); err != nil {
						return err
					}
					<-ch
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			}
			rt.Close()
		})
		if a := ex.Stats().Active; a != 0 {
			t.Errorf("workers %d: Stats.Active after Close: got %d; want 0", workers, a)
		}
	}
}
