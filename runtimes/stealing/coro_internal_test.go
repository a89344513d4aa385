package stealing

import (
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// fakeG returns the i-th made-up goroutine address of a test: aligned and
// spaced like real g addresses, never 0 or gTomb.
func fakeG(i int) uintptr { return 0x100000 + uintptr(i)*0x1a0 }

// The g table grows past many entries, finds each of them and nothing
// else, and shrinks back to its smallest size when they are removed.
func TestGTableGrowShrink(t *testing.T) {
	var gt gtable
	const n = 20000
	cs := make([]coro, n)
	for i := range n {
		gt.insert(fakeG(i), &cs[i])
	}
	live, capacity := gt.size()
	if live != n || 4*capacity < 5*n {
		t.Fatalf("after %d inserts: %d live, capacity %d; want %d live and capacity at least %d", n, live, capacity, n, 5*n/4)
	}
	for i := range n {
		if got := gt.lookup(fakeG(i)); got != &cs[i] {
			t.Fatalf("lookup of key %d: got %p; want %p", i, got, &cs[i])
		}
	}
	for i := n; i < 2*n; i++ {
		if got := gt.lookup(fakeG(i)); got != nil {
			t.Fatalf("lookup of absent key %d: got %p; want nil", i, got)
		}
	}
	for i := range n {
		if i%2 == 0 {
			gt.remove(fakeG(i))
		}
	}
	for i := range n {
		want := &cs[i]
		if i%2 == 0 {
			want = nil
		}
		if got := gt.lookup(fakeG(i)); got != want {
			t.Fatalf("lookup of key %d after removing the even ones: got %p; want %p", i, got, want)
		}
	}
	for i := range n {
		if i%2 == 1 {
			gt.remove(fakeG(i))
		}
	}
	if live, capacity := gt.size(); live != 0 || capacity != gMinCap {
		t.Errorf("after removing everything: %d live, capacity %d; want 0 and %d", live, capacity, gMinCap)
	}
}

// Goroutines insert, look up and remove their own keys while others do the
// same, so that the table is rebuilt (grown and shrunk) under concurrent
// lock-free lookups, and a reader probes for keys that are never there.
// Each goroutine must always find its own live keys and never a removed
// one; run it under -race.
func TestGTableConcurrent(t *testing.T) {
	var gt gtable
	const workers, keys, rounds = 8, 300, 20
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() { // the foreign reader
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if c := gt.lookup(fakeG(workers*keys + i%1000)); c != nil {
				t.Errorf("lookup of a key never inserted: got %p", c)
				return
			}
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := make([]coro, keys)
			for r := range rounds {
				for i := range keys {
					gt.insert(fakeG(w*keys+i), &cs[i])
					if got := gt.lookup(fakeG(w*keys + i)); got != &cs[i] {
						t.Errorf("worker %d round %d: own key %d not found after insert (got %p)", w, r, i, got)
						return
					}
				}
				for i := range keys {
					if got := gt.lookup(fakeG(w*keys + i)); got != &cs[i] {
						t.Errorf("worker %d round %d: own key %d lost (got %p)", w, r, i, got)
						return
					}
					gt.remove(fakeG(w*keys + i))
					if got := gt.lookup(fakeG(w*keys + i)); got != nil {
						t.Errorf("worker %d round %d: removed key %d still found", w, r, i)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	if live, capacity := gt.size(); live != 0 || capacity != gMinCap {
		t.Errorf("after every key went: %d live, capacity %d; want 0 and %d", live, capacity, gMinCap)
	}
}

// Wakes from one P chain up in its ready slot, at most readyBatch long;
// a full chain moves to the ready list as one batch. With more wakes than
// the slots can hold, some batches must reach the list, each exactly
// readyBatch long, and every woken coroutine is somewhere exactly once.
func TestReadyBatches(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	e := &Executor{ // no workers: base 0, so wake never starts one
		rings:   make([]ring, procs),
		readies: make([]readySlot, procs),
		debt:    make([]shard, procs),
		quit:    make(chan struct{}),
		idle:    make(chan struct{}),
	}
	e.mon.init()
	n := readyBatch*len(e.readies) + 9
	cs := make([]coro, n)
	for i := range cs {
		cs[i].e = e
		cs[i].state = coroParked
		cs[i].Resume()
	}
	mustPanicInternal(t, "a second Resume", func() { cs[0].Resume() })
	seen := map[*coro]int{}
	count := func(head *coro) int {
		k := 0
		for c := head; c != nil; c = c.rnext.Load() {
			seen[c]++
			k++
		}
		return k
	}
	for i := range e.readies {
		head := e.readies[i].c.Load()
		if k := count(head); k > readyBatch || head != nil && int(head.n.Load()) != k {
			t.Errorf("slot %d: a chain of %d (head says %d); want at most %d, as the head says", i, k, head.n.Load(), readyBatch)
		}
	}
	batches := 0
	for b := e.readyQ.head; b != nil; b = b.link {
		batches++
		if k := count(b); k != readyBatch {
			t.Errorf("ready list batch %d: %d coroutines; want %d", batches, k, readyBatch)
		}
	}
	if batches == 0 || int(e.readyQ.n.Load()) != batches {
		t.Errorf("ready list: %d batches, n = %d; want at least one, and n equal to it", batches, e.readyQ.n.Load())
	}
	for i := range cs {
		if seen[&cs[i]] != 1 || cs[i].state != coroReady {
			t.Errorf("coroutine %d: seen %d times, %v; want once, ready", i, seen[&cs[i]], cs[i].state)
		}
	}
}

func mustPanicInternal(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}

// A coro fills whole cache lines, so that its size class keeps every one
// on lines of its own (see coro): a field added without a look at the
// size fails here instead of making two drivers share a line.
func TestCoroLines(t *testing.T) {
	if !goruntime.GOK {
		t.Skip("no loop coroutines on this architecture: drivers run the loop on their own stack")
	}
	if n := unsafe.Sizeof(coro{}); n%64 != 0 {
		t.Errorf("coro is %d bytes; want a multiple of 64", n)
	}
}

// prefetch of a coroutine whose recorded stack address is stale or was
// never set (a stack the collector moved, a coroutine that never
// suspended) does no harm: it only hints.
func TestPrefetchStale(t *testing.T) {
	var c coro
	c.prefetch() // g 0, sp 0: the null page, below it and above
	c.g = ^uintptr(0) &^ 63
	c.sp.Store(1 << 30 * 3) // nothing is mapped there in a test process
	c.prefetch()
}
