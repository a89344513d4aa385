package stealing

import (
	"sync"
	"sync/atomic"
	"unsafe" // for plain slot stores

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// procPin and procUnpin are goruntime.ProcPin and goruntime.ProcUnpin
// under this package's names (they inline to the same direct calls):
// between the two, no other goroutine can run on the caller's P, so the
// pinned goroutine is the only owner of the ring with that index.
// Everything between them in this package is a bounded number of atomic
// operations.
func procPin() int { return goruntime.ProcPin() }
func procUnpin()   { goruntime.ProcUnpin() }

const (
	ringSize = 256 // power of two
	ringMask = ringSize - 1
)

// ring is the run queue of one P: a bounded FIFO circular buffer plus a
// one-entry LIFO slot (next), like the Go runtime's p.runq and p.runnext.
//
// Ownership: the owner of ring i is whichever goroutine is pinned to P i.
// Only the owner writes slots and tail, and only the owner puts a task into
// next. Anyone (the owner or a thief) takes tasks: from the FIFO by a CAS on
// head, from next by a CAS (or the owner's Swap) to nil. Every field is
// accessed atomically; Go's atomics are sequentially consistent, which gives
// the release/acquire pairs the protocol needs (the owner's slot store is
// ordered before its tail store, so a thief that loads tail sees the slot;
// a successful head CAS orders the thief's slot loads before the owner can
// reuse those slots).
//
// Two stores are exceptions. On amd64 put publishes tail with a plain store
// (see put for why no wake-up is lost; amd64 does not reorder stores, so a
// thief that loads the new tail sees the slot stored before it). And slot
// stores are plain: the owner writes a slot only past tail, where no taker
// reads, and publishes it with the tail store that follows, so outside the
// race detector it writes with a plain store (setSlot), which unlike an
// atomic store does not wait for the slot's cache line to come back from a
// thief that read it. The one read it can overlap is a thief's read of a slot
// it is about to lose: the owner reuses slot i only once head has passed i,
// so the thief's CAS on the old head fails and it drops what it read. Go's
// memory model gives such a racy read of a word some value written to it,
// never a torn one. Under the race detector, which would report that read,
// setSlot is an atomic store.
//
// The zero ring is empty and ready to use. Cost: put one swap and two
// plain stores (on amd64; elsewhere the tail store is atomic), pushBack one
// plain and one atomic store, pop one CAS, stealing half of n tasks n
// loads, n plain stores and one CAS.
type ring struct {
	head atomic.Uint32 // index of the oldest entry; advanced by CAS (owner pop, thieves)
	tail atomic.Uint32 // one past the newest entry; stored only by the owner
	// takes counts tasks taken out of next (by the owner or thieves). With
	// head it is the ring's progress signature for the monitor.
	takes atomic.Uint32
	_     [64 - 12]byte

	// next is the LIFO slot: the task most recently spawned on this P, run
	// before the FIFO. It sits on a cache line of its own so that thieves
	// polling head and tail do not disturb the owner's spawn/claim cycle.
	next atomic.Pointer[kc.Task]
	_    [64 - 8]byte

	slots [ringSize]atomic.Pointer[kc.Task]
}

// put is Spawn's path: t goes into the LIFO slot, and the task it displaces
// (unless none, or stale) to the FIFO tail. It returns the displaced task if
// the FIFO is full (the caller queues it elsewhere), else nil. Owner only.
//
// The tail store here is plain on amd64 (setTail), not atomic.Store's XCHG,
// which waits for the store buffer to drain, including the slot store whose
// cache line a thief may hold. The wake check's loads of the counters may
// then pass the tail store, so the tail store is not the publisher's half of
// the Dekker pair with a worker going idle (see wake); the swap of next is,
// for the displaced task too. The swap is a locked read-modify-write, which
// the wake check's loads cannot pass, and it leaves t in next. So a worker
// whose idle check the wake check missed loads next after the swap and sees
// t there, or what became of it:
//   - t, or a newer task: the ring counts as busy, and the worker searches
//     again, which takes it through the rings' tails once more (a buffered
//     store drains in nanoseconds, by the hardware's progress guarantee).
//   - t finished: t was claimed, by a locked read-modify-write, by the
//     spawner or by a goroutine that got t's handle from Launch's return,
//     after the tail store; empty re-reads tail after seeing t finished,
//     and amd64 keeps stores in order, so it sees the displaced task.
//   - nil: t was taken by a pop on this P, which came after the tail store
//     in the P's program order, or by a thief, which runs t and then
//     searches again: either way a running worker is still to look.
//
// This is the Go runtime's runqput and wakep: a CAS on runnext, a StoreRel
// of runqtail, then a load of nmspinning.
func (r *ring) put(t *kc.Task) *kc.Task {
	if old := r.next.Swap(t); old != nil && !stale(old) && !r.push(old, true) {
		return old
	}
	return nil
}

// pushBack appends t to the FIFO; false if it is full. Owner only. Unlike
// put, it publishes with an atomic store, which is the publisher's half of
// the Dekker pair with a worker going idle.
func (r *ring) pushBack(t *kc.Task) bool { return r.push(t, false) }

// push appends t to the FIFO; false if it is full. Owner only. It publishes
// the slot with setTail if afterSwap (only put, right after its swap of
// next, may ask for that), else with atomic.Store.
func (r *ring) push(t *kc.Task, afterSwap bool) bool {
	h := r.head.Load()
	tl := r.tail.Load()
	if tl-h >= ringSize {
		return false
	}
	r.setSlot(tl, t)
	if afterSwap {
		r.setTail(tl + 1) // publishes the slot to thieves
	} else {
		r.tail.Store(tl + 1) // publishes the slot to thieves
	}
	return true
}

// pushMany appends as many of ts as fit and returns how many it appended,
// publishing them with one tail store. Owner only.
func (r *ring) pushMany(ts []*kc.Task) int {
	tl := r.tail.Load()
	n := min(len(ts), ringSize-int(tl-r.head.Load()))
	if n <= 0 {
		return 0
	}
	for i, t := range ts[:n] {
		r.setSlot(tl+uint32(i), t)
	}
	r.tail.Store(tl + uint32(n))
	return n
}

// setSlot writes slot i (an index at or past tail, not yet published).
// Owner only; see the ring doc for why a plain store is enough.
func (r *ring) setSlot(i uint32, t *kc.Task) {
	s := &r.slots[i&ringMask]
	if goruntime.RaceEnabled {
		s.Store(t)
		return
	}
	*(**kc.Task)(unsafe.Pointer(s)) = t
}

// setTail publishes the slots below v with a release store
// (goruntime.StoreRel: a plain store on amd64). Owner only; only put may
// use it, through push (see put).
func (r *ring) setTail(v uint32) { goruntime.StoreRel(&r.tail, v) }

// pop takes the LIFO slot, else the oldest FIFO entry; nil if both are
// empty. Owner only (a thief uses stealInto, takeFIFO or takeNext).
func (r *ring) pop() *kc.Task {
	if r.next.Load() != nil {
		if t := r.next.Swap(nil); t != nil {
			r.takes.Add(1)
			return t
		}
	}
	return r.takeFIFO()
}

// takeFIFO takes the oldest FIFO entry; nil if the FIFO is empty. Anyone.
func (r *ring) takeFIFO() *kc.Task {
	for {
		h := r.head.Load()
		if h == r.tail.Load() {
			return nil
		}
		t := r.slots[h&ringMask].Load()
		if r.head.CompareAndSwap(h, h+1) { // commits the take against other takers
			return t
		}
	}
}

// takeNext takes the LIFO slot if it still holds t. Anyone.
func (r *ring) takeNext(t *kc.Task) bool {
	if t == nil || !r.next.CompareAndSwap(t, nil) {
		return false
	}
	r.takes.Add(1)
	return true
}

// grab moves the oldest FIFO entries into batch, half of them (rounded
// up) if half, else as many as batch holds, and returns how many it moved.
// The owner grabs half to make room when the FIFO is full; the monitor
// grabs all of a stuck ring (unstick). Anyone may call it: like takeFIFO it
// reads the slots and then commits with a CAS on head. While head stays at
// h the owner writes no slot in [h, tail) (it writes only past tail, below
// h+ringSize), so a successful CAS means the slots read were the entries;
// if h was stale, tail-h may be anything, the slots read may be reused,
// and the CAS fails.
func (r *ring) grab(batch []*kc.Task, half bool) int {
	for {
		h := r.head.Load()
		n := r.tail.Load() - h
		if half {
			n -= n / 2
		}
		n = min(n, uint32(len(batch)))
		for i := range n {
			batch[i] = r.slots[(h+i)&ringMask].Load()
		}
		if r.head.CompareAndSwap(h, h+n) { // commits the take against other takers
			return int(n)
		}
	}
}

// stealInto moves half of v's FIFO (rounded up) into r, which must be
// empty, and returns one of the moved tasks for the caller to run; nil if
// v's FIFO is empty. The caller must own r (be pinned to its P); v is any
// other ring. The LIFO slot is not stolen here (see Executor.spin).
func (r *ring) stealInto(v *ring) *kc.Task {
	tl := r.tail.Load()
	if r.head.Load() != tl {
		panic("stealing: stealInto a non-empty ring")
	}
	for {
		h := v.head.Load()
		n := v.tail.Load() - h
		n -= n / 2
		if n == 0 {
			return nil
		}
		if n > ringSize/2 { // h and tail read at different moments: retry
			continue
		}
		// Copy into our unpublished slots [tl, tl+n): our FIFO is empty and
		// only its owner (us) writes past tail, so nobody reads them yet.
		for i := range n {
			r.setSlot(tl+i, v.slots[(h+i)&ringMask].Load())
		}
		if v.head.CompareAndSwap(h, h+n) { // commits the steal
			n--
			t := r.slots[(tl+n)&ringMask].Load()
			if n > 0 {
				r.tail.Store(tl + n) // publishes the rest
			}
			return t
		}
	}
}

// empty reports whether r holds no runnable task. A task in the LIFO slot
// that has already finished (its Await ran it inline) does not count: it is
// a stale entry whose Run would return at once.
//
// Tail is read again after next (and after the stale check), and a tail
// that moved in between counts as work, as in the Go runtime's runqempty.
// Without it, a put that displaces a task to the FIFO between the tail load
// and the next load, followed by a take of the new task from next, would
// look empty. The re-read also sees a plain tail store by put whenever the
// stale check saw the task put left in next finished (see put).
func (r *ring) empty() bool {
	h := r.head.Load()
	tl := r.tail.Load()
	t := r.next.Load()
	idle := tl == h && (t == nil || t.Finished())
	return idle && r.tail.Load() == tl
}

// queued is about how many runnable tasks r holds: the FIFO's length and
// the LIFO slot unless it is empty or stale. The loads are not one
// snapshot; the monitor sizes its grants with it.
func (r *ring) queued() int32 {
	h := r.head.Load()
	n := int32(min(r.tail.Load()-h, ringSize)) // tail loaded after head: never behind it
	if t := r.next.Load(); t != nil && !stale(t) {
		n++
	}
	return n
}

// progress is a number that changes whenever a task leaves r.
func (r *ring) progress() uint32 { return r.head.Load() + r.takes.Load() }

// stale reports whether t's body already ran (it was claimed inline by an
// await): dropping such a queue entry loses nothing.
func stale(t *kc.Task) bool { return t.Finished() }

// injector is the global FIFO: spawns that found their P's ring full (half
// of the ring moves with them), spawns from a P beyond the rings, and work
// that a worker could not put back in a ring. Every worker checks it when
// its own ring is empty and, for fairness, before its ring on every
// injectEvery-th task.
//
// The zero injector is empty and ready to use. Cost: one mutex section per
// push (of a batch) or pop (of a batch); amortized O(1) per task.
type injector struct {
	// n is the number of queued tasks. Written under mu; read lock-free
	// (seq-cst) as the "is there global work" hint of the wake and park
	// protocol: a pusher stores n before it checks for idle workers, and a
	// worker going idle checks n after it announces itself idle.
	n atomic.Int64
	// pops counts pop operations; the monitor's progress signature.
	pops atomic.Uint32

	mu sync.Mutex
	q  []*kc.Task // under mu: the queue is q[h:]
	h  int        // under mu
}

// push appends batch and then t (if not nil) to the queue.
func (q *injector) push(batch []*kc.Task, t *kc.Task) {
	q.mu.Lock()
	if q.h > 0 && q.h >= len(q.q)/2 { // compact: the live part moves to the front
		n := copy(q.q, q.q[q.h:])
		clear(q.q[n:])
		q.q, q.h = q.q[:n], 0
	}
	q.q = append(q.q, batch...)
	if t != nil {
		q.q = append(q.q, t)
	}
	q.n.Store(int64(len(q.q) - q.h))
	q.mu.Unlock()
}

// pop removes the oldest task and returns it, moving up to a share of the
// rest (a 1/nworkers part, at most ringSize/2, like the Go runtime's
// globrunqget) into the ring of the caller's P, if that is one of rings. It
// reports how many tasks it took in all (0: the queue was empty). The ring
// is filled while pinned and holding mu: the pinned section only pushes.
func (q *injector) pop(rings []ring, nworkers int) (*kc.Task, int) {
	if q.n.Load() == 0 {
		return nil, 0
	}
	q.mu.Lock()
	avail := len(q.q) - q.h
	if avail == 0 {
		q.mu.Unlock()
		return nil, 0
	}
	share := min(avail/max(nworkers, 1)+1, avail, ringSize/2)
	t := q.q[q.h]
	q.q[q.h] = nil
	q.h++
	took := 1
	if pid := procPin(); pid < len(rings) {
		n := rings[pid].pushMany(q.q[q.h : q.h+share-1])
		clear(q.q[q.h : q.h+n])
		q.h += n
		took += n
	}
	procUnpin()
	if q.h == len(q.q) {
		q.q, q.h = q.q[:0], 0
	}
	q.n.Store(int64(len(q.q) - q.h))
	q.pops.Add(1)
	q.mu.Unlock()
	return t, took
}

// empty reports whether no task is queued (a lock-free hint).
func (q *injector) empty() bool { return q.n.Load() == 0 }
