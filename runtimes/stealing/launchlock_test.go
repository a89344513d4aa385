package stealing_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
	"github.com/kcbench/kcbench/runtimes/stealing"
)

// A body that holds a mutex while it launches thousands of children, each
// of which takes the same mutex, finishes on one worker with no temporary
// worker to add: Launch only queues (Spawn), so the loop ends, the body
// releases the mutex, and the children then run. An executor that bounded
// its queues by making a long-queueing launcher yield to them would
// deadlock here: the worker blocks in the first child's Lock, out of the
// runtime's sight, and the launcher that holds the mutex never runs again.
func TestLaunchUnderLock(t *testing.T) {
	testutil.NoLeak(t)
	rt := newRuntime(t, stealing.Workers(1), stealing.MaxExtra(0)) // closed only if Run returns: a deadlocked Close would hang the test
	const n = 20_000
	var mu sync.Mutex
	ran := 0 // under mu
	testutil.Watchdog(t, 30*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			mu.Lock()
			defer mu.Unlock()
			for range n {
				if _, err := j.Launch(func(*kc.Job) error { mu.Lock(); ran++; mu.Unlock(); return nil }); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
	rt.Close()
	mu.Lock()
	defer mu.Unlock()
	if ran != n {
		t.Errorf("%d children ran; want %d", ran, n)
	}
}
