package stealing

import (
	"runtime"
	"testing"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// A spinner that has just stolen a batch (half of another ring's FIFO)
// spins for idleSpin before it gives up, since more of the burst may come;
// one that found nothing in that long spin spins once, as before, the next
// time. Here the worker is on P 0 (GOMAXPROCS 1) and ring 1 has no worker.
// The bound on the long spin only ever errs towards passing: a slow machine
// stretches a short spin too.
func TestSpinForAfterBatch(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	w := &worker{}
	e := bareExecutor(2)
	for range 9 { // one in the LIFO slot, eight in the FIFO
		e.rings[1].put(new(kc.Task))
	}
	if task, r := e.spinFor(w); task == nil || r != nil || !w.burst {
		t.Fatalf("spinFor with eight tasks in another ring's FIFO: got task %p, coroutine %p, burst %v; want a task and burst", task, r, w.burst)
	}
	e = bareExecutor(2) // nothing queued
	start := time.Now()
	if task, r := e.spinFor(w); task != nil || r != nil {
		t.Fatalf("spinFor with nothing queued: got task %p, coroutine %p; want neither", task, r)
	}
	if d := time.Since(start); d < idleSpin {
		t.Errorf("spinFor after a batch, with nothing queued, gave up after %v; want at least idleSpin (%v)", d, idleSpin)
	}
	if w.burst {
		t.Error("spinFor found nothing in its long spin, yet the next spin would be long too; want burst cleared")
	}
}
