package stealing

import (
	"runtime"
	"testing"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// fairExecutor is an Executor with one ring and one ready slot and no
// workers, for driving findLocal by hand. The caller holds GOMAXPROCS at
// 1, so every pin finds P 0.
func fairExecutor() *Executor {
	return &Executor{rings: make([]ring, 1), readies: make([]readySlot, 1), base: 1}
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
	e := fairExecutor()
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
	e := fairExecutor()
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
	e := fairExecutor()
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
