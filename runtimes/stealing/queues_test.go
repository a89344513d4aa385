package stealing

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// Ownership is a protocol, not something the ring enforces, so these tests
// give each goroutine a ring of its own instead of a P.

func newTasks(n int) ([]*kc.Task, map[*kc.Task]int) {
	ts := make([]*kc.Task, n)
	idx := make(map[*kc.Task]int, n)
	for i := range ts {
		ts[i] = new(kc.Task)
		idx[ts[i]] = i
	}
	return ts, idx
}

func TestRingOwnerOnly(t *testing.T) {
	var r ring
	ts, _ := newTasks(ringSize + 2)
	for i, x := range ts[:ringSize] {
		if !r.pushBack(x) {
			t.Fatalf("pushBack %d of %d: full", i, ringSize)
		}
	}
	if r.pushBack(ts[ringSize]) {
		t.Fatal("pushBack on a full ring succeeded")
	}
	if old := r.put(ts[ringSize]); old != nil {
		t.Fatalf("put into an empty slot returned %p", old)
	}
	if old := r.put(ts[ringSize+1]); old != ts[ringSize] {
		t.Fatalf("put with the FIFO full returned %p; want the displaced %p", old, ts[ringSize])
	}
	if got := r.pop(); got != ts[ringSize+1] {
		t.Fatal("pop did not take the LIFO slot first")
	}
	var batch [ringSize / 2]*kc.Task
	if n := r.grab(batch[:], true); n != ringSize/2 || batch[0] != ts[0] {
		t.Fatalf("grab(half) of a full ring: %d tasks, first %p; want %d, %p", n, batch[0], ringSize/2, ts[0])
	}
	for i := ringSize / 2; i < ringSize; i++ {
		if got := r.pop(); got != ts[i] {
			t.Fatalf("pop %d: not FIFO", i)
		}
	}
	if r.pop() != nil || !r.empty() {
		t.Fatal("ring not empty after popping everything")
	}
}

// One owner pushes, spawns into the LIFO slot and pops; thieves steal half
// into rings of their own and drain them. Every task must come out exactly
// once. Run it under -race.
func TestRingStealHalf(t *testing.T) {
	const n, thieves = 200000, 3
	ts, idx := newTasks(n)
	seen := make([]atomic.Int32, n)
	take := func(x *kc.Task) {
		if x != nil && seen[idx[x]].Add(1) != 1 {
			t.Errorf("task %d taken twice", idx[x])
		}
	}
	var owner ring
	var done atomic.Bool
	var wg sync.WaitGroup
	for range thieves {
		wg.Go(func() {
			var mine ring
			for !done.Load() || !owner.empty() {
				take(mine.stealInto(&owner))
				for x := mine.pop(); x != nil; x = mine.pop() {
					take(x)
				}
				if x := owner.next.Load(); x != nil && owner.takeNext(x) {
					take(x)
				}
			}
		})
	}
	for i, x := range ts {
		if old := owner.put(x); old != nil {
			take(old) // full: the owner runs it itself
		}
		if i%7 == 0 {
			take(owner.pop())
		}
	}
	for x := owner.pop(); x != nil; x = owner.pop() {
		take(x)
	}
	done.Store(true)
	wg.Wait()
	for i := range seen {
		if c := seen[i].Load(); c != 1 {
			t.Fatalf("task %d taken %d times; want 1", i, c)
		}
	}
}

func TestInjectorFIFO(t *testing.T) {
	var q injector
	ts, _ := newTasks(1000)
	for i := 0; i < len(ts); i += 10 {
		q.push(ts[i:i+9], ts[i+9])
	}
	rings := make([]ring, 1) // the share moves into a ring we drain
	next := 0
	check := func(x *kc.Task) {
		if x != ts[next] {
			t.Fatalf("injector pop: got task out of order at %d", next)
		}
		next++
	}
	for !q.empty() {
		x, n := q.pop(rings, 2)
		check(x)
		for i := 1; i < n; i++ {
			check(rings[0].pop())
		}
	}
	if next != len(ts) {
		t.Fatalf("popped %d tasks; want %d", next, len(ts))
	}
}

// The monitor judges a queue stuck when its progress number has not moved
// while it held work, so every way a task or a coroutine leaves counts:
// a ring's LIFO slot and FIFO, and a ready slot's head and whole chain.
// Without that, a P whose work leaves only through its LIFO or ready slot
// would look stuck, and the monitor would add workers it does not need.
func TestProgressCountsEveryTake(t *testing.T) {
	var r ring
	ts, _ := newTasks(2)
	r.put(ts[0])
	r.pushBack(ts[1])
	p := r.progress()
	if r.pop() != ts[0] || r.progress() == p {
		t.Error("a pop of the LIFO slot left progress unchanged")
	}
	p = r.progress()
	if r.pop() != ts[1] || r.progress() == p {
		t.Error("a pop of the FIFO left progress unchanged")
	}
	var s readySlot
	a, b := new(coro), new(coro)
	a.rnext.Store(b)
	s.c.Store(a)
	n := s.takes.Load()
	if s.popOne() != a || s.takes.Load() == n {
		t.Error("popOne left the ready slot's takes unchanged")
	}
	n = s.takes.Load()
	if s.take() != b || s.takes.Load() == n {
		t.Error("take of the chain left the ready slot's takes unchanged")
	}
}
