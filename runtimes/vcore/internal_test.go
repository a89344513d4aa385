package vcore

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// tasks returns n distinct task pointers; the queues never dereference them.
func tasks(n int) []*kc.Task {
	ts := make([]*kc.Task, n)
	for i := range ts {
		ts[i] = new(kc.Task)
	}
	return ts
}

func TestRingFIFOAndFull(t *testing.T) {
	var r ring
	r.init(4)
	ts := tasks(5)
	if !r.empty() || r.pop() != nil {
		t.Fatal("new ring: got an item; want empty")
	}
	for i := range 4 {
		if !r.push(ts[i]) {
			t.Fatalf("push %d into a ring of 4: got full", i)
		}
	}
	if r.push(ts[4]) {
		t.Fatal("push into a full ring: got true; want false")
	}
	for lap := range 3 { // wrap around a few times
		for i := range 4 {
			if got := r.pop(); got != ts[i] {
				t.Fatalf("lap %d pop %d: got %p; want %p", lap, i, got, ts[i])
			}
			if !r.push(ts[i]) {
				t.Fatalf("lap %d: push after pop: got full", lap)
			}
		}
	}
}

// Producers and consumers hammer one ring, and a global queue with a tiny
// ring so that the overflow list is used: every task comes out exactly once.
func TestQueuesConcurrent(t *testing.T) {
	const producers, consumers, per = 3, 3, 1500
	var r ring
	r.init(64)
	var g globalQueue
	g.init(8)
	queues := []struct {
		name string
		push func(*kc.Task) bool
		pop  func() *kc.Task
	}{
		{"ring", r.push, r.pop},
		{"global", func(t *kc.Task) bool { g.push(t); return true }, g.pop},
	}
	for _, q := range queues {
		t.Run(q.name, func(t *testing.T) {
			ts := tasks(producers * per)
			var seen sync.Map
			var wg sync.WaitGroup
			var left sync.WaitGroup
			left.Add(len(ts))
			done := make(chan struct{})
			for p := range producers {
				wg.Go(func() {
					for _, x := range ts[p*per : (p+1)*per] {
						for !q.push(x) {
							runtime.Gosched()
						}
					}
				})
			}
			for range consumers {
				wg.Go(func() {
					for {
						select {
						case <-done:
							return
						default:
						}
						if x := q.pop(); x != nil {
							if _, dup := seen.LoadOrStore(x, true); dup {
								t.Errorf("task %p popped twice", x)
							}
							left.Done()
						} else {
							runtime.Gosched()
						}
					}
				})
			}
			left.Wait()
			close(done)
			wg.Wait()
			if x := q.pop(); x != nil {
				t.Errorf("after draining: got %p; want empty", x)
			}
		})
	}
}

// Once nothing is active, sysmon blocks (no timer, no CPU) and the first
// Spawn wakes it again.
func TestSysmonSleepsWhenIdle(t *testing.T) {
	ex, err := New(Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(ex)
	defer rt.Close()
	for round := range 2 {
		if err := rt.Run(context.Background(), func(*kc.Job) error { return nil }); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second) // a watchdog, not a timing assertion
		for !ex.mon.idle.Load() {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: sysmon still awake 5 s after the last task", round)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// A wake from a goroutine the executor does not count (here a plain
// goroutine; in a program, the caller of Run or a waker whose task has
// ended since) that is starting an owner as Close runs: the owner must be
// started before Close's wait, and be waited for, or never started.
// testHookStart holds the start between its stop check and its wg.Add
// while Close runs.
func TestLateStartAndClose(t *testing.T) {
	testutil.NoLeak(t)
	ex, err := New(Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	testutil.CloseDuringStart(t, func(f func()) { testHookStart = f },
		func() { ex.kick(&ex.cores[0]) }, // the core is Free: the kick claims it and starts an owner
		func() { ex.Close() })
}

// A task that went to the global queue's overflow list is popped within a
// bounded number of pops even while every pop is followed by a push that
// would keep the ring from emptying.
func TestGlobalOverflowNotOvertaken(t *testing.T) {
	var g globalQueue
	g.init(2)
	ts := tasks(3)
	for _, x := range ts {
		g.push(x) // the third goes to the overflow list
	}
	more := tasks(8)
	for i, x := range more {
		got := g.pop()
		if got == ts[2] {
			return
		}
		if got == nil {
			t.Fatalf("pop %d: got nil with tasks queued", i)
		}
		g.push(x)
	}
	t.Fatalf("the overflow task was not popped in %d pops while pushes continued", len(more))
}
