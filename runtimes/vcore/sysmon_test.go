package vcore

import (
	"context"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestTickMovedWorkWaitsOneTick drives sysmon's ticks by hand on one core
// whose owner is stuck (its root body blocks on a Go channel, so its beat
// does not move) with a live child in its next slot and nothing else
// queued. The first tick only looks. The second finds the child still in
// the slot and moves it to the global queue; that move must not justify a
// retake in the same tick, or an owner the OS merely descheduled for two
// ticks between a Launch and its Await would lose its core. The third
// finds the moved child still waiting behind the stuck core and retakes
// it, so a truly stuck owner's work is rescued one tick later. The times
// passed to tick are made up (two staleAfter apart), so the test needs no
// sleeps; sysmon's own goroutine is kept asleep for the whole test.
func TestTickMovedWorkWaitsOneTick(t *testing.T) {
	if !regByG {
		t.Skip("the next slot needs goroutine registry keys")
	}
	testutil.NoLeak(t)
	ex, err := New(Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	// kick wakes the monitor only by a CAS of idle from true: with idle
	// false, sysmon's goroutine stays in its first select until Close,
	// and this goroutine is the only one to touch the cores' seen* fields
	// and to call tick.
	ex.mon.idle.Store(false)
	rt := kc.New(ex)
	launched, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- rt.Run(context.Background(), func(j *kc.Job) error {
			defer close(launched)
			c, err := j.Launch(func(*kc.Job) error { return nil })
			if err != nil {
				return err
			}
			launched <- struct{}{}
			<-release // stuck where the runtime cannot see
			return c.Join(j)
		})
	}()
	testutil.Watchdog(t, 10*time.Second, func() { <-launched })

	c := &ex.cores[0]
	child := c.next.Load()
	if child == nil || stateOf(c.word.Load()) != coreRunning || !ex.global.empty() {
		t.Errorf("set-up: next slot %p, core state %d, global empty %v; want the child, Running, true",
			child, stateOf(c.word.Load()), ex.global.empty())
	}
	var ts tickState
	t0 := time.Now()
	step := 2 * ex.cfg.staleAfter
	if did := ex.tick(t0, &ts); did || ex.Stats().Retakes != 0 {
		t.Errorf("tick 1 (first look): did %v, retakes %d; want false, 0", did, ex.Stats().Retakes)
	}
	did := ex.tick(t0.Add(step), &ts)
	if c.next.Load() != nil || ex.global.empty() {
		t.Errorf("tick 2: next slot %p, global empty %v; want the child moved to the global queue", c.next.Load(), ex.global.empty())
	}
	if did || ex.Stats().Retakes != 0 {
		t.Errorf("tick 2 (moves the child): did %v, retakes %d; want false, 0: a move justifies no retake in its own tick", did, ex.Stats().Retakes)
	}
	if !ex.global.empty() { // still waiting: the core's owner is stuck, and there is no other
		did = ex.tick(t0.Add(2*step), &ts)
		if !did || ex.Stats().Retakes != 1 {
			t.Errorf("tick 3 (moved child still waiting): did %v, retakes %d; want true, 1", did, ex.Stats().Retakes)
		}
	}

	close(release)
	testutil.Watchdog(t, 10*time.Second, func() {
		if err := <-done; err != nil {
			t.Error(err)
		}
		rt.Close()
	})
	if a := ex.Stats().Active; a != 0 {
		t.Errorf("Stats.Active after Close: got %d; want 0", a)
	}
}
