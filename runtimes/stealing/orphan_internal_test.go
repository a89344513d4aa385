package stealing

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// divertExecutor is the executor under test, except that the first Spawn
// after divert is set puts its task into ring 1 instead of the ring of the
// caller's P. The test that uses it runs at GOMAXPROCS 1 with two rings, so
// no goroutine is ever pinned to P 1: the diverting goroutine is the only
// one that writes ring 1, which makes it the ring's owner in the ring's
// sense (see ring).
type divertExecutor struct {
	*Executor
	divert atomic.Bool
}

func (x *divertExecutor) Spawn(t *kc.Task) {
	if x.divert.CompareAndSwap(true, false) {
		if old := x.rings[1].put(t); old != nil {
			panic("stealing: divertExecutor found ring 1 full")
		}
		x.wake()
		return
	}
	x.Executor.Spawn(t)
}

// A task in the ring of a P on which no driver runs, while the only driver
// never runs dry: each task of a stream spawns the next one, into the LIFO
// slot of the driver's P, until the stranded task has run. The driver's
// own ring always has work, so it never spins and steals; its fairness
// tick looks at the global queues, not at other rings; and with
// MaxExtra(0) the monitor may add no worker for the stuck ring. The
// monitor must move the stuck ring's work to the injector, where the
// fairness tick finds it. Two rings (New at GOMAXPROCS 2) and GOMAXPROCS 1
// afterwards make ring 1 such a ring for certain: every pin finds P 0.
func TestOrphanRingNotStarved(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	testutil.NoLeak(t)
	e, err := New(Workers(1), MaxExtra(0))
	if err != nil {
		t.Fatal(err)
	}
	runtime.GOMAXPROCS(1) // from here on every pin finds P 0: no driver pops ring 1
	x := &divertExecutor{Executor: e}
	rt := kc.New(x)
	var done atomic.Bool // the stranded task ran (or the test gave up on it)
	var streamed atomic.Int64
	runErr := make(chan error, 1)
	go func() {
		runErr <- rt.Run(context.Background(), func(j *kc.Job) error {
			nur, err := j.Open()
			if err != nil {
				return err
			}
			var next kc.Func
			next = func(*kc.Job) error {
				if done.Load() {
					return nil
				}
				streamed.Add(1)
				_, err := nur.Launch(next) // into the LIFO slot of the driver's P
				return err
			}
			if _, err := nur.Launch(next); err != nil {
				return err
			}
			x.divert.Store(true)
			stranded, err := nur.Launch(func(*kc.Job) error { done.Store(true); return nil })
			if err != nil {
				return err
			}
			if err := stranded.Join(j); err != nil { // parks the root: the driver goes on with the stream
				return err
			}
			return nur.AwaitAll(j)
		})
	}()
	select {
	case err = <-runErr:
	case <-time.After(5 * time.Second):
		t.Errorf("the task in ring 1 did not run in 5s while the driver ran %d tasks of its own stream; %+v\n%s", streamed.Load(), Snapshot(e), DumpRings(e))
		done.Store(true) // the stream ends: the driver runs dry, steals the task, and the test can end
		err = <-runErr
	}
	if err != nil {
		t.Error(err)
	}
	rt.Close()
	e.Close()
}

// unstick moves everything runnable of one P to the global queues: the
// ring's FIFO and then its LIFO slot to the injector, in that order (oldest
// first), and the ready slot's chain, whole, to the ready list; the other
// P's queues stay as they were. The executor has no workers (base 0, so
// wake starts none); GOMAXPROCS 1 keeps every pin on P 0, so the test is
// ring 1's only writer.
func TestUnstickMovesOneP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	e := &Executor{rings: make([]ring, 2), readies: make([]readySlot, 2)}
	r := &e.rings[1]
	var want []*kc.Task
	for range 3 {
		task := new(kc.Task)
		if !r.pushBack(task) {
			t.Fatal("pushBack into an empty ring: false")
		}
		want = append(want, task)
	}
	lifo := new(kc.Task)
	if old := r.put(lifo); old != nil {
		t.Fatal("put found the FIFO full")
	}
	want = append(want, lifo)
	other := new(kc.Task)
	e.rings[0].put(other)
	head, second := &coro{}, &coro{}
	second.n.Store(1)
	head.setRnext(second)
	head.n.Store(2)
	e.readies[1].c.Store(head)

	e.unstick(1)

	if got := e.inj.q[e.inj.h:]; len(got) != len(want) || e.inj.n.Load() != int64(len(want)) {
		t.Fatalf("injector: %d tasks (n %d); want %d", len(got), e.inj.n.Load(), len(want))
	} else {
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("injector entry %d: %p; want %p", i, got[i], want[i])
			}
		}
	}
	if !r.empty() {
		t.Errorf("ring 1 after unstick: not empty\n%s", DumpRings(e))
	}
	if e.rings[0].next.Load() != other {
		t.Errorf("ring 0's LIFO slot changed")
	}
	if c := e.readyQ.pop(); c != head || c.rnext.Load() != second || c.n.Load() != 2 {
		t.Errorf("ready list: chain %p; want %p, with %p after it and n 2", c, head, second)
	}
	if e.readies[1].c.Load() != nil {
		t.Errorf("ready slot 1 after unstick: not empty")
	}
}
