package stealing

import (
	"sync"
	"sync/atomic"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// readyBatch is the longest chain of woken coroutines a ready slot holds:
// a wake that finds the slot's chain this long moves the whole chain to the
// ready list (one mutex section per readyBatch wakes, when one cancel walk
// wakes thousands) and starts a new one.
const readyBatch = 8

// readySlot is the ready slot of one P, the coroutine counterpart of the Go
// runtime's runnext: a chain (through coro.link, its length in the head's
// n) of coroutines woken by goroutines running on that P, which the driver
// next running on the P resumes before it takes a task. Only the goroutine
// pinned to the P puts (ready); anyone takes the whole chain with a swap
// to nil (the P's driver, or a spinning thief in its last round). Since
// only the pinned owner ever stores a non-nil chain, the owner's CAS from
// a chain it loaded cannot suffer ABA: the slot can only have changed to
// nil meanwhile.
type readySlot struct {
	c atomic.Pointer[coro]
	// takes counts chains taken; the monitor's progress signature of the
	// slot (see monitor).
	takes atomic.Uint32
	_     [64 - 12]byte
}

// take removes and returns the slot's chain, or nil.
func (s *readySlot) take() *coro {
	r := s.c.Swap(nil)
	if r != nil {
		s.takes.Add(1)
	}
	return r
}

// readyList is the global list of ready chains: full chains moved out of a
// ready slot, chains a leaving driver did not get to, and coroutines woken
// from a P beyond the slots. Drivers check it (one load) before they take
// a task.
type readyList struct {
	// n is the number of chains queued. Written under mu; read lock-free
	// (seq-cst) as the hint of the wake protocol, like injector.n: a pusher
	// stores n before it checks for idle workers, and a worker going idle
	// checks n after it announced itself idle.
	n    atomic.Int32
	pops atomic.Uint32 // chains popped: the monitor's progress signature
	mu   sync.Mutex
	head *coro // under mu: the oldest chain; chains linked through batch
	tail *coro // under mu
}

// push appends the chain headed by c.
func (q *readyList) push(c *coro) {
	q.mu.Lock()
	c.batch = nil
	if q.tail == nil {
		q.head = c
	} else {
		q.tail.batch = c
	}
	q.tail = c
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
		q.head = c.batch
		if q.head == nil {
			q.tail = nil
		}
		c.batch = nil
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
			c.link, spill = nil, nil
			n := int32(1)
			if old != nil {
				if k := old.n.Load(); k < readyBatch {
					c.link, n = old, k+1
				} else {
					spill = old
				}
			}
			c.n.Store(n)
			if s.CompareAndSwap(old, c) {
				break
			}
		}
	} else {
		c.link, spill = nil, c
		c.n.Store(1)
	}
	procUnpin()
	if spill != nil {
		e.readyQ.push(spill)
	}
	e.wake()
}

// adopt takes the chain headed by r for d: d runs r now and keeps the rest
// as its own chain, which it resumes before it takes anything else. d's
// chain must be empty.
func (d *worker) adopt(r *coro) *coro {
	d.ready = r.link
	r.link = nil
	return r
}

// takeReady returns a ready coroutine for d: from d's own chain, the ready
// slot of the caller's P, or the ready list; nil if there is none.
func (e *Executor) takeReady(d *worker) *coro {
	if r := d.ready; r != nil {
		d.ready = r.link
		r.link = nil
		return r
	}
	if r := e.readyQ.pop(); r != nil {
		return d.adopt(r)
	}
	pid := procPin()
	if pid < len(e.readies) && e.readies[pid].c.Load() != nil {
		if r := e.readies[pid].take(); r != nil {
			procUnpin()
			return d.adopt(r)
		}
	}
	procUnpin()
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
				return d.adopt(r)
			}
		}
	}
	return nil
}

// dropReady gives d's chain to the ready list before d stops running
// tasks (it leaves, or its body ended it), and wakes a worker for it.
func (e *Executor) dropReady(d *worker) {
	if r := d.ready; r != nil {
		d.ready = nil
		r.n.Store(0) // the length is only read on slot heads
		e.readyQ.push(r)
		e.wake()
	}
}

// anyReady reports whether a ready coroutine waits in a slot or the list
// (drivers' own chains do not count: their drivers are running).
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

// releaseChain hands the ready chain of the caller's driver to the ready
// list, when the caller is a loop coroutine about to block without
// suspending (Park's blocking path): its driver waits with it, so the
// chain would be stranded, and a coroutine in it may be the one that
// wakes the caller (a Join whose end cancels a blocked sender). The
// driver is inside resume, so the running coroutine owns its fields. A
// body that blocks where the runtime cannot see (a Go channel, a mutex)
// still holds its driver's chain until it returns.
func (e *Executor) releaseChain() {
	if !goruntime.GOK {
		return
	}
	if c := e.gt.lookup(goruntime.G()); c != nil && c.drv != nil {
		e.dropReady(c.drv)
	}
}
