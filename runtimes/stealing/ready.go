package stealing

import (
	"sync"
	"sync/atomic"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// readyBatch is the longest chain of woken coroutines a ready slot holds:
// a wake that finds the slot's chain this long moves the whole chain to the
// ready list (one mutex section per readyBatch wakes, when one cancel walk
// wakes thousands) and starts a new one. A long chain does not keep the
// other workers waiting for the list: a spinning worker takes a slot's
// whole chain, however short, in its last round (stealReady); the list's
// chains matter while the other workers are busy, and then fewer, longer
// ones cost fewer mutex sections.
const readyBatch = 64

// readySlot is the ready slot of one P, the coroutine counterpart of the Go
// runtime's runnext: a chain (through coro.rnext, its length in the head's
// n) of coroutines woken by goroutines running on that P, which the driver
// next running on the P resumes one by one before it takes a task. Only
// the goroutine pinned to the P stores a non-nil chain (ready, and
// adoptRest, which parks the rest of a chain taken elsewhere here) or pops
// the head (popOne); anyone takes the whole chain with a swap to nil (a
// spinning thief in its last round). So the slot can change under a
// pinned owner only to nil, and the owner's CAS from a head it loaded
// cannot suffer ABA: a head's rnext and every n below it were written
// before the head was published and do not change while it stays there.
// Nothing stays in a driver's hands but the coroutine it runs: a body
// that blocks where the runtime cannot see (a Go channel, a mutex) leaves
// the rest of its chain in the slot, for other drivers, spinners and the
// monitor to see.
type readySlot struct {
	c atomic.Pointer[coro]
	// takes counts heads and chains taken; the monitor's progress
	// signature of the slot (see monitor).
	takes atomic.Uint32
	_     [64 - 12]byte
}

// popOne removes and returns the head of the slot's chain, or nil. The
// caller must be pinned to the slot's P (see readySlot).
func (s *readySlot) popOne() *coro {
	r := s.c.Load()
	if r == nil || !s.c.CompareAndSwap(r, r.rnext.Load()) {
		return nil // empty, or a thief took the chain
	}
	s.takes.Add(1)
	return r
}

// take removes and returns the slot's chain, or nil.
func (s *readySlot) take() *coro {
	r := s.c.Swap(nil)
	if r != nil {
		s.takes.Add(1)
	}
	return r
}

// readyList is the global list of ready chains, oldest first: full chains
// moved out of a ready slot, the rests of chains a driver took and could
// not park in its own slot (see adoptRest), slot chains the monitor moved
// (unstick), and coroutines woken from a P beyond the slots. Drivers check
// it (one load) before they take a task.
type readyList struct {
	// n is the number of chains queued. Written under mu; read lock-free
	// (seq-cst) as the hint of the wake protocol, like injector.n: a pusher
	// stores n before it checks for idle workers, and a worker going idle
	// checks n after it announced itself idle.
	n    atomic.Int32
	pops atomic.Uint32 // chains popped: the monitor's progress signature
	mu   sync.Mutex
	head *coro // under mu: the oldest chain; chains linked through their heads' link
	tail *coro // under mu
}

// push appends the chain headed by c.
func (q *readyList) push(c *coro) {
	q.mu.Lock()
	c.link = nil
	if q.tail == nil {
		q.head = c
	} else {
		q.tail.link = c
	}
	q.tail = c
	q.n.Add(1)
	q.mu.Unlock()
}

// pushFront puts the chain headed by c before every other chain: the rest
// of the oldest chain, popped by a driver that could not park it in its
// own slot (see adoptRest).
func (q *readyList) pushFront(c *coro) {
	q.mu.Lock()
	c.link = q.head
	q.head = c
	if q.tail == nil {
		q.tail = c
	}
	q.n.Add(1)
	q.mu.Unlock()
}

// pop removes and returns the oldest chain, or nil.
func (q *readyList) pop() *coro {
	if q.n.Load() == 0 {
		return nil
	}
	q.mu.Lock()
	c := q.head
	if c != nil {
		q.head = c.link
		if q.head == nil {
			q.tail = nil
		}
		c.link = nil
		q.n.Add(-1)
		q.pops.Add(1)
	}
	q.mu.Unlock()
	return c
}

// ready makes the woken coroutine c runnable: it joins the chain in the
// ready slot of the caller's P, or starts a new one there, the full chain
// moving to the ready list; from a P beyond the slots it goes to the list
// alone. Then, as after a Spawn, a worker is woken if none is spinning and
// fewer than the target are running; the slot's CAS (or the list's n) is
// the publisher's half of the wake protocol's Dekker pair. The pinned
// section is a few atomics.
func (e *Executor) ready(c *coro) {
	var spill *coro
	pid := procPin()
	if pid < len(e.readies) {
		s := &e.readies[pid].c
		for {
			old := s.Load()
			next, n := (*coro)(nil), int32(1)
			spill = nil
			if old != nil {
				if k := old.n.Load(); k < readyBatch {
					next, n = old, k+1
				} else {
					spill = old
				}
			}
			c.setRnext(next)
			c.n.Store(n)
			if s.CompareAndSwap(old, c) {
				break
			}
		}
	} else {
		c.setRnext(nil)
		spill = c
		c.n.Store(1)
	}
	procUnpin()
	if spill != nil {
		e.readyQ.push(spill)
	}
	e.wake()
}

// setRnext sets c's successor in a ready chain, before c is published
// (a CAS on a slot, or the list's mutex). A popper (popOne) may still
// read it after c left the chain, and then drops what it read (its CAS
// fails). A release store (goruntime.StoreRelPointer: a plain store on
// amd64), ordered before the publishing CAS.
func (c *coro) setRnext(next *coro) { goruntime.StoreRelPointer(&c.rnext, next) }

// adoptRest returns the head of the chain r, taken from the ready list
// (listed) or another P's slot, to run now, and publishes the rest in the
// ready slot of the caller's P, or, if that is taken or there is none,
// gives it back to the ready list: no coroutine waits in a driver's hands.
// The rest of a listed chain goes back to the list's front, where it was,
// so the list stays in wake order (FIFO, which no chain can overtake):
// the slot is taken when the fairness tick takes a listed chain while the
// P's own chain still runs, and at the tail the rest would run after every
// chain listed since, long after the wakes that readied it (a mass wake,
// such as a cancel walk, lists thousands). A stolen chain's rest goes to
// the tail, as a spilled slot chain does. The rest is published
// work, so wake follows, as after ready: the caller may block in its body
// before it gets back to the slot.
func (e *Executor) adoptRest(r *coro, listed bool) *coro {
	rest := r.rnext.Load()
	if rest == nil {
		return r
	}
	rest.prefetch() // the next resume after r, here or wherever rest goes
	pid := procPin()
	if pid < len(e.readies) && e.readies[pid].c.CompareAndSwap(nil, rest) {
		procUnpin() // rest.n is its length: n below a chain's head is exact
	} else {
		procUnpin()
		if listed {
			e.readyQ.pushFront(rest)
		} else {
			e.readyQ.push(rest)
		}
	}
	e.wake()
	return r
}

// takeReady returns a ready coroutine: the head of the ready slot of the
// caller's P (the most recent wake there, or the rest of a chain adopted
// on this P), else a chain from the ready list (adoptRest); nil if there
// is none.
func (e *Executor) takeReady() *coro {
	pid := procPin()
	if pid < len(e.readies) {
		if r := e.readies[pid].popOne(); r != nil {
			procUnpin()
			if n := r.rnext.Load(); n != nil {
				n.prefetch() // the slot's new head, most likely the next resume
			}
			return r
		}
	}
	procUnpin()
	return e.takeReadyList()
}

// takeReadyList returns the head of the oldest chain on the ready list
// (adoptRest), or nil.
func (e *Executor) takeReadyList() *coro {
	if r := e.readyQ.pop(); r != nil {
		return e.adoptRest(r, true)
	}
	return nil
}

// stealReady takes the ready chain of another P's slot (the first from a
// random one on): a spinner's last round, when that P's driver has not got
// to it.
func (e *Executor) stealReady(d *worker) *coro {
	n := len(e.readies)
	start := d.randomRing(n)
	for i := range n {
		s := &e.readies[(start+i)%n]
		if s.c.Load() != nil {
			if r := s.take(); r != nil {
				return e.adoptRest(r, false)
			}
		}
	}
	return nil
}

// anyReady reports whether a ready coroutine waits in a slot or the list.
func (e *Executor) anyReady() bool {
	if e.readyQ.n.Load() != 0 {
		return true
	}
	for i := range e.readies {
		if e.readies[i].c.Load() != nil {
			return true
		}
	}
	return false
}
