package kc

import (
	"context"
	"testing"
	"time"
)

// countHooks returns how many nodes are on j's hooks.
func countHooks(j *Job) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for h := j.hooks; h != nil; h = h.next {
		n++
	}
	return n
}

// TestOnCancelStopUnlinks: an OnCancel whose stop prevented the call takes
// its node off the job's hooks. A node left there would never run (it is
// disarmed), so nothing in the API shows it, but a job that keeps
// registering and stopping callbacks (a loop around a cancellable call)
// would grow its hook list without bound, and each left node keeps the
// job off the leaf fast path of cancellation (cancelLeafLocked).
func TestOnCancelStopUnlinks(t *testing.T) {
	rt := New(goExecutor())
	const rounds = 100
	err := rt.Run(context.Background(), func(j *Job) error {
		for range rounds {
			stop := j.OnCancel(func() { t.Error("a stopped OnCancel callback ran") })
			if !stop() {
				t.Fatal("stop of a callback on a job never cancelled: got false; want true")
			}
		}
		if n := countHooks(j); n != 0 {
			t.Errorf("after %d OnCancel+stop: %d nodes still on the job's hooks; want 0", rounds, n)
		}
		return nil
	})
	if err != nil {
		t.Errorf("Run: %v", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSleepTimeoutUnlinksHook: a Sleep that ends by its timer (not by a
// cancellation) takes its cancel hook off the job's hooks, as a cancelled
// one finds it taken by the walk. A hook left there is woken by a later
// cancel walk and loses the wake's CAS, so nothing in the API shows it;
// but a body that sleeps in a loop would grow its hook list without bound.
func TestSleepTimeoutUnlinksHook(t *testing.T) {
	rt := New(goExecutor())
	const rounds = 50
	err := rt.Run(context.Background(), func(j *Job) error {
		for range rounds {
			if err := j.Sleep(time.Microsecond); err != nil {
				t.Fatalf("Sleep(1us) of a job never cancelled: %v; want nil", err)
			}
		}
		if n := countHooks(j); n != 0 {
			t.Errorf("after %d Sleeps ended by their timer: %d hooks still on the job; want 0", rounds, n)
		}
		return nil
	})
	if err != nil {
		t.Errorf("Run: %v", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
}
