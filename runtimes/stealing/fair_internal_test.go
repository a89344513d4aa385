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

// The spec 05 fairness rule, injector half: a worker whose ready
// coroutines never run out still takes a task from the injector within
// injectEvery looks for work. Without the rule, ready coroutines always
// come first and the injected task waits forever.
func TestFairnessTakesInjector(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	e := fairExecutor()
	injected := new(kc.Task)
	e.inj.push(nil, injected)
	w := &worker{}
	for i := 1; i <= 2*injectEvery; i++ {
		e.readies[0].c.Store(&coro{}) // a ready coroutine is always there
		task, r := e.findLocal(w)
		if task == injected {
			if i > injectEvery {
				t.Fatalf("the injected task came at look %d; want within %d", i, injectEvery)
			}
			return
		}
		if task != nil || r == nil {
			t.Fatalf("look %d: task %p, coroutine %p; want the ready coroutine or the injected task", i, task, r)
		}
	}
	t.Fatalf("the injected task was not taken in %d looks for work, with a coroutine always ready", 2*injectEvery)
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
	w := &worker{}
	for i := 1; i <= 2*injectEvery; i++ {
		lifo := new(kc.Task)
		if old := r.put(lifo); old != nil {
			t.Fatalf("look %d: put found the FIFO full", i)
		}
		task, c := e.findLocal(w)
		if task == oldest {
			if i > injectEvery {
				t.Fatalf("the FIFO's task came at take %d; want within %d", i, injectEvery)
			}
			return
		}
		if task != lifo || c != nil {
			t.Fatalf("take %d: task %p, coroutine %p; want the LIFO slot's task %p or the FIFO's %p", i, task, c, lifo, oldest)
		}
	}
	t.Fatalf("the FIFO's task was not taken in %d takes, with the LIFO slot always refilled", 2*injectEvery)
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
	w := &worker{}
	for i := 1; i <= 2*injectEvery; i++ {
		woken := &coro{}
		e.readies[0].c.Store(woken) // a wake refills the slot every time
		task, r := e.findLocal(w)
		if r == listed {
			if i > injectEvery {
				t.Fatalf("the listed coroutine came at look %d; want within %d", i, injectEvery)
			}
			return
		}
		if task != nil || r != woken {
			t.Fatalf("look %d: task %p, coroutine %p; want the slot's %p or the listed %p", i, task, r, woken, listed)
		}
	}
	t.Fatalf("the listed coroutine was not taken in %d looks for work, with the ready slot always refilled", 2*injectEvery)
}
