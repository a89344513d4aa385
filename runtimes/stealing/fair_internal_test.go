package stealing

import (
	"runtime"
	"testing"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// bareExecutor is an Executor with n rings and n ready slots and no
// workers, for driving findLocal and spin by hand. The caller holds
// GOMAXPROCS at 1, so every pin finds P 0, and no goroutine runs on the
// other Ps.
func bareExecutor(n int) *Executor {
	return &Executor{rings: make([]ring, n), readies: make([]readySlot, n), base: 1}
}

// takenWithin drives findLocal by hand for up to 2*injectEvery looks for
// work. Before each look, refill sets up the competing work and returns
// the task and coroutine that the look must otherwise return; t fails
// unless a look returns what target accepts, named what, within
// injectEvery looks.
func takenWithin(t *testing.T, e *Executor, what string, target func(*kc.Task, *coro) bool, refill func() (*kc.Task, *coro)) {
	t.Helper()
	w := &worker{}
	for i := 1; i <= 2*injectEvery; i++ {
		otherTask, otherCoro := refill()
		task, r := e.findLocal(w)
		if target(task, r) {
			if i > injectEvery {
				t.Fatalf("%s came at look %d; want within %d", what, i, injectEvery)
			}
			return
		}
		if task != otherTask || r != otherCoro {
			t.Fatalf("look %d: task %p, coroutine %p; want %s or task %p, coroutine %p", i, task, r, what, otherTask, otherCoro)
		}
	}
	t.Fatalf("%s was not taken in %d looks for work, with the competing work always refilled", what, 2*injectEvery)
}

// The spec 05 fairness rule, injector half: a worker whose ready
// coroutines never run out still takes a task from the injector within
// injectEvery looks for work. Without the rule, ready coroutines always
// come first and the injected task waits forever.
func TestFairnessTakesInjector(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	e := bareExecutor(1)
	injected := new(kc.Task)
	e.inj.push(nil, injected)
	takenWithin(t, e, "the injected task",
		func(task *kc.Task, _ *coro) bool { return task == injected },
		func() (*kc.Task, *coro) {
			c := &coro{}
			e.readies[0].c.Store(c) // a ready coroutine is always there
			return nil, c
		})
}

// The fairness rule, ring half: a ring whose LIFO slot is refilled after
// every take (two tasks spawning each other) still gives up its FIFO's
// oldest task within injectEvery takes. Without the rule the LIFO slot is
// always taken first and the FIFO task waits forever.
func TestFairnessTakesFIFO(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	e := bareExecutor(1)
	r := &e.rings[0]
	oldest := new(kc.Task)
	if !r.pushBack(oldest) {
		t.Fatal("pushBack into an empty ring: false")
	}
	takenWithin(t, e, "the FIFO's task",
		func(task *kc.Task, _ *coro) bool { return task == oldest },
		func() (*kc.Task, *coro) {
			lifo := new(kc.Task)
			if old := r.put(lifo); old != nil {
				t.Fatal("put found the FIFO full")
			}
			return lifo, nil
		})
}

// The fairness rule, ready-list half: wakes that keep refilling the P's
// ready slot still let a chain on the ready list run within injectEvery
// looks. Without the fairness tick's look at the list, the slot always
// comes first and the listed coroutine waits forever.
func TestFairnessTakesReadyList(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	e := bareExecutor(1)
	listed := &coro{}
	listed.n.Store(1)
	e.readyQ.push(listed)
	takenWithin(t, e, "the listed coroutine",
		func(_ *kc.Task, r *coro) bool { return r == listed },
		func() (*kc.Task, *coro) {
			woken := &coro{}
			e.readies[0].c.Store(woken) // a wake refills the slot every time
			return nil, woken
		})
}

// A spinner's last round takes what another P's worker has not got to:
// that P's ready chain (stealReady), else a task that stayed in its LIFO
// slot across a Gosched (stealNext). Here P 1 has no worker at all, and
// its ring's FIFO is empty, so only the last round can find either.
func TestLastSpinRoundSteals(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	e := bareExecutor(2)
	w := &worker{}
	lifo := new(kc.Task)
	e.rings[1].next.Store(lifo)
	if task, r := e.spin(w); task != lifo || r != nil {
		t.Errorf("spin with a task in another P's LIFO slot: got task %p, coroutine %p; want task %p", task, r, lifo)
	}
	ready := &coro{}
	ready.n.Store(1)
	e.readies[1].c.Store(ready)
	if task, r := e.spin(w); task != nil || r != ready {
		t.Errorf("spin with a coroutine in another P's ready slot: got task %p, coroutine %p; want coroutine %p", task, r, ready)
	}
	if task, r := e.spin(w); task != nil || r != nil {
		t.Errorf("spin with nothing queued: got task %p, coroutine %p; want neither", task, r)
	}
}
