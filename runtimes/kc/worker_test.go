package kc_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// runOnExecutor runs tasks from one FIFO with Task.RunOn, each goroutine
// with a kc.Worker of its own, and keeps the Worker contract: it flushes
// when the queue is empty and, deferred, when the goroutine ends (also by
// runtime.Goexit, after which a new goroutine takes its place). One
// goroutine runs all the time; a worker that parks is compensated by a drain
// goroutine that lasts until the queue is empty. With a single body parked
// at a time, tasks therefore run one after the other, in spawn order, on one
// goroutine and one Worker. after, if set, is called after each RunOn that
// returns, on the goroutine that ran it, with its Worker.
type runOnExecutor struct {
	mu      sync.Mutex
	cond    sync.Cond
	q       []*kc.Task
	quit    bool
	wg      sync.WaitGroup
	goexits atomic.Int32
	after   func(t *kc.Task, w *kc.Worker)
}

func newRunOnExecutor(after func(*kc.Task, *kc.Worker)) *runOnExecutor {
	e := &runOnExecutor{after: after}
	e.cond.L = &e.mu
	e.startLoop(true)
	return e
}

func (e *runOnExecutor) startLoop(persistent bool) {
	e.wg.Add(1)
	go e.loop(persistent)
}

func (e *runOnExecutor) loop(persistent bool) {
	w := new(kc.Worker)
	clean := false
	defer func() {
		w.Flush() // before the goroutine stops running tasks, Goexit included
		if !clean {
			e.goexits.Add(1)
			e.startLoop(persistent) // a body ended this goroutine: replace it
		}
		e.wg.Done()
	}()
	for {
		t := e.next(w, persistent)
		if t == nil {
			clean = true
			return
		}
		t.RunOn(w)
		if e.after != nil {
			e.after(t, w)
		}
	}
}

// next pops a task; with the queue empty it flushes w, then waits
// (persistent) or returns nil.
func (e *runOnExecutor) next(w *kc.Worker, persistent bool) *kc.Task {
	flushed := false
	e.mu.Lock()
	for {
		if len(e.q) > 0 {
			t := e.q[0]
			e.q = e.q[1:]
			e.mu.Unlock()
			return t
		}
		if !flushed {
			e.mu.Unlock()
			w.Flush() // may wake a waiter that spawns: look at the queue again
			flushed = true
			e.mu.Lock()
			continue
		}
		if !persistent || e.quit {
			e.mu.Unlock()
			return nil
		}
		e.cond.Wait()
	}
}

func (e *runOnExecutor) Spawn(t *kc.Task) {
	e.mu.Lock()
	e.q = append(e.q, t)
	e.mu.Unlock()
	e.cond.Signal()
}

func (e *runOnExecutor) Park(p *kc.Parker) {
	if p.Worker() {
		e.startLoop(false)
	}
	p.Wait()
}

func (e *runOnExecutor) AfterFunc(d time.Duration, f func()) kc.Timer {
	return time.AfterFunc(d, f)
}

func (e *runOnExecutor) Close() error {
	e.mu.Lock()
	e.quit = true
	e.mu.Unlock()
	e.cond.Broadcast()
	e.wg.Wait()
	return nil
}

// TestWorkerFlushBeforeOtherParent guards RunOn's flush rule: after a child
// of nursery A ran on a Worker, A's release is batched and A, closed and
// otherwise empty, is not yet terminal (Closing); the next task, if it is
// a child of another parent, or a detached child of A itself, must find A
// terminal when its body starts (RunOn flushed first), since such a task
// might wait for A.
func TestWorkerFlushBeforeOtherParent(t *testing.T) {
	testutil.NoLeak(t)
	var a1, a2 *kc.Job
	// after records the nurseries' states after each task the drain
	// goroutine runs; its first three are a1's child, b's child and a2's
	// child, in that order (the root's own entry comes after all of them).
	var mu sync.Mutex
	var after [][2]kc.State
	ex := newRunOnExecutor(func(*kc.Task, *kc.Worker) {
		mu.Lock()
		after = append(after, [2]kc.State{a1.State(), a2.State()})
		mu.Unlock()
	})
	rt := kc.New(ex)
	var seenOther, seenDetached kc.State
	testutil.Watchdog(t, 10*time.Second, func() {
		err := rt.Run(context.Background(), func(root *kc.Job) error {
			// Queued in this order, and run in it by one drain goroutine
			// once the root parks: a child of a1; a child of another
			// nursery b; a child of a2; a detached child of a2.
			a1, _ = root.Open()
			a1.Launch(func(*kc.Job) error { return nil })
			a1.Close()
			b, _ := root.Open()
			b.Launch(func(*kc.Job) error { seenOther = a1.State(); return nil })
			a2, _ = root.Open()
			a2.Launch(func(*kc.Job) error { return nil })
			d, _ := a2.Launch(func(*kc.Job) error { seenDetached = a2.State(); return nil }, kc.Detached())
			a2.Close()
			return d.Join(root) // the only park
		})
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	mu.Lock()
	if len(after) < 3 || after[0][0] != kc.Closing || after[2][1] != kc.Closing {
		t.Errorf("nurseries (a1, a2) after each task: %v; want a1 Closing after its child, a2 Closing after its child (their releases are batched)", after)
	}
	mu.Unlock()
	if seenOther != kc.Completed {
		t.Errorf("a task of another parent saw the batched parent %v; want Completed (RunOn flushes first)", seenOther)
	}
	if seenDetached != kc.Completed {
		t.Errorf("a detached child saw its batched parent %v; want Completed (RunOn flushes before a detached child)", seenDetached)
	}
	if a1.State() != kc.Completed || a2.State() != kc.Completed {
		t.Errorf("nurseries: %v, %v; want Completed", a1.State(), a2.State())
	}
	rt.Close()
	if s := checkTotals(t, rt, true); s.JobsCreated != 8 || s.JobsCompleted != 8 {
		t.Errorf("Stats %+v; want 8 jobs created and completed (root, 3 nurseries, 4 children)", s)
	}
}
