package stealing

import (
	"context"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// finishedTasks returns the tasks of n jobs that have run and ended, on an
// executor closed since. Queued again, each is a stale entry: a worker's
// RunOn of it does nothing (its claim fails).
func finishedTasks(t *testing.T, n int) []*kc.Task {
	t.Helper()
	e, err := New(Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(e)
	var out []*kc.Task
	err = rt.Run(context.Background(), func(j *kc.Job) error {
		for range n {
			c, err := j.Launch(func(*kc.Job) error { return nil })
			if err != nil {
				return err
			}
			out = append(out, (*kc.Task)(c))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// A worker that takes a batch from the injector keeps one task and puts
// the rest into its P's ring, where only a worker that spins or ends a
// task would find them; so it wakes a worker for them (fromInjector), as
// the Go runtime's findRunnable does after globrunqget. Here the taker is
// the test itself, on an executor none of whose workers has started and
// with no monitor, so the rest of the batch runs only if that wake
// happens.
func TestInjectorBatchWakes(t *testing.T) {
	testutil.NoLeak(t)
	tasks := finishedTasks(t, 4)
	e, err := New(Workers(2), withoutMonitor())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.inj.push(tasks, nil)
	if got := e.fromInjector(); got != tasks[0] {
		t.Fatalf("fromInjector: got %p; want the oldest task, %p", got, tasks[0])
	}
	if e.inj.n.Load() != 1 {
		t.Fatalf("injector after a batch of 3 out of 4: %d tasks left; want 1", e.inj.n.Load())
	}
	for deadline := time.Now().Add(5 * time.Second); !ringsEmpty(e); {
		if time.Now().After(deadline) {
			t.Fatalf("the rest of an injector batch is still queued after 5 s: fromInjector woke no worker; %+v\n%s", Snapshot(e), DumpRings(e))
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// ringsEmpty reports whether every ring's FIFO and LIFO slot are empty.
func ringsEmpty(e *Executor) bool {
	for i := range e.rings {
		r := &e.rings[i]
		if r.head.Load() != r.tail.Load() || r.next.Load() != nil {
			return false
		}
	}
	return true
}
