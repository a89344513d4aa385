package kc

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// cachedWaiter reports whether w is in some P's cache of wait nodes (see
// newWaiter). Call it only once nothing runs on rt.
func cachedWaiter(rt *Runtime, w *waiter) bool {
	for i := range rt.slabs {
		for c := rt.slabs[i].free; c != nil; c = c.next {
			if c == w {
				return true
			}
		}
	}
	return false
}

// hookedOn reports whether n is on j's hooks.
func hookedOn(j *Job, n *cancelNode) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	for h := j.hooks; h != nil; h = h.next {
		if h == n {
			return true
		}
	}
	return false
}

// awaitParked runs a job that awaits a deferred which stays pending until
// the await is about to park; inPark (on the awaiting goroutine, with the
// wait registered) may act on the awaiting job first. It returns the wait
// node of that await and the await's error.
func awaitParked(t *testing.T, opts []Option, inPark func(w *Job)) (*Runtime, *waiter, error) {
	rt, w, err, _ := awaitParkedState(t, opts, inPark)
	return rt, w, err
}

// awaitParkedState is awaitParked that also returns the awaiting job's
// state word as the await returned.
func awaitParkedState(t *testing.T, opts []Option, inPark func(w *Job)) (*Runtime, *waiter, error, uint64) {
	t.Helper()
	proceed := make(chan struct{})
	var (
		parked  atomic.Pointer[waiter]
		awaiter atomic.Pointer[Job]
	)
	ex := &spinExecutor{}
	ex.spin = func(p *Parker) {
		c := awaiter.Load()
		if p.arm || c == nil {
			return
		}
		w := (*waiter)(unsafe.Pointer(p)) // p is a job wait's first field
		if !hookedOn(c, &w.hook) || !parked.CompareAndSwap(nil, w) {
			return // another wait: the Run caller's, or the parent's Join
		}
		if inPark != nil {
			inPark(c)
		}
		close(proceed)
	}
	rt := New(ex, opts...)
	var (
		awaitErr error
		state    uint64
	)
	err := rt.Run(context.Background(), func(j *Job) error {
		d, err := Async(j, func(*Job) (int, error) { <-proceed; return 1, nil })
		if err != nil {
			return err
		}
		c, err := j.Launch(func(c *Job) error {
			awaiter.Store(c)
			_, awaitErr = d.Await(c)
			state = c.state.Load()
			return nil
		})
		if err != nil {
			return err
		}
		c.Join(j) // Cancelled if inPark cancels it
		_, err = d.Await(j)
		return err
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if parked.Load() == nil {
		t.Fatal("the await never parked")
	}
	return rt, parked.Load(), awaitErr, state
}

// TestWaiterReused: the wait node of an await that the deferred's end
// woke goes back to a P's cache for the next wait.
func TestWaiterReused(t *testing.T) {
	if goruntime.RaceEnabled {
		t.Skip("no wait node cache under the race detector")
	}
	rt, w, err := awaitParked(t, nil, nil)
	if err != nil {
		t.Fatalf("Await: %v", err)
	}
	if !cachedWaiter(rt, w) {
		t.Error("the wait node of a finished await was not cached for reuse")
	}
}

// TestWaiterNotReusedAfterCancel: an await woken by its waiter's
// cancellation does not give its node back: the cancel walk detached its
// hook, and a walk may fire a detached hook after the waiter returned.
func TestWaiterNotReusedAfterCancel(t *testing.T) {
	rt, w, err := awaitParked(t, nil, func(c *Job) { c.Cancel(errors.New("cancelled while parked")) })
	if !errors.Is(err, ErrCancelled) {
		t.Fatalf("Await = %v; want the cancellation error", err)
	}
	if cachedWaiter(rt, w) {
		t.Error("the wait node of a cancelled await was cached for reuse")
	}
}

// TestWaiterNotReusedWithTracer: trace events name waiters by address,
// so with a tracer no wait node is reused.
func TestWaiterNotReusedWithTracer(t *testing.T) {
	rt, w, err := awaitParked(t, []Option{WithTracer(TracerFunc(func(Event) {}))}, nil)
	if err != nil {
		t.Fatalf("Await: %v", err)
	}
	if cachedWaiter(rt, w) {
		t.Error("a wait node was cached with a tracer installed")
	}
}

// TestAwaitLeavesNoSlowBit: a cancellable wait that its target's end
// woke leaves nothing registered on the waiting job, so it clears the
// bitSlow its registration set, and the job can end with one CAS.
func TestAwaitLeavesNoSlowBit(t *testing.T) {
	_, _, err, s := awaitParkedState(t, nil, nil)
	if err != nil {
		t.Fatalf("Await: %v", err)
	}
	if s&bitListed == 0 {
		t.Fatal("the awaiting job was not listed: the wait registered no hook")
	}
	if s&bitSlow != 0 {
		t.Errorf("state %#x after the await: bitSlow still set", s)
	}
}
