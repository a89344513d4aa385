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
func TestNextSlotKeepsAwaitedChildren(t *testing.T) {
	if !regByG {
		t.Skip("the next slot needs goroutine registry keys")
	}
	testutil.NoLeak(t)
	ex, err := New(Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(ex)
	const n = 5000
	testutil.Watchdog(t, 10*time.Second, func() {
		err = rt.Run(context.Background(), func(j *kc.Job) error {
			return awaitOnes(t, j, n, nil)
		})
		if err != nil {
			t.Error(err)
		}
		rt.Close()
	})
	var pushed uint64
	for i := range ex.cores {
		pushed += ex.cores[i].inbox.tail.Load()
	}
	if pushed > n/10 {
		t.Errorf("%d awaited children: %d went through an inbox; want at most %d", n, pushed, n/10)
	}
	if a := ex.Stats().Active; a != 0 {
		t.Errorf("Stats.Active after Close: got %d; want 0", a)
	}
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
