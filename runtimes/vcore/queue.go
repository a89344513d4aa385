package vcore

import (
	"sync"
	"sync/atomic"

	"github.com/kcbench/kcbench/runtimes/kc"
	"golang.org/x/sys/cpu"
)

// ring is a bounded lock-free multi-producer multi-consumer FIFO of tasks
// (Dmitry Vyukov's bounded MPMC queue): spec 05's "lock-free MPMC ring
// buffer". It is the global ring and, with a smaller capacity, each core's
// inbox. The zero ring is not usable; call init. push and pop cost one CAS
// on the shared index plus one store and one load of the slot's sequence
// word when uncontended.
//
// Protocol. Slot i's seq tells who may touch it next: seq == pos means the
// slot is empty and the producer that wins the CAS tail: pos -> pos+1 may
// fill it; seq == pos+1 means it is full and the consumer that wins the CAS
// head: pos -> pos+1 may empty it; it then stores seq = pos+len, handing the
// slot to the producer one lap later. The task pointer is a plain field:
// the producer writes it before its seq store and the consumer reads it
// after its seq load, and Go atomics are sequentially consistent, so the
// seq store/load pair is the release/acquire edge spec 05 asks for on
// run-queue publish (the race detector sees the same edge).
//
// A producer that has won the tail CAS but not yet stored seq makes
// consumers report "empty" at its slot until it does; every producer
// therefore checks whether to wake a worker only after its own store (see
// Executor.kick), so that such an item is never stranded.
type ring struct {
	_     cpu.CacheLinePad
	head  atomic.Uint64 // next position to pop; advanced by consumers' CAS
	_     cpu.CacheLinePad
	tail  atomic.Uint64 // next position to push; advanced by producers' CAS
	_     cpu.CacheLinePad
	mask  uint64 // len(slots)-1; immutable after init
	slots []slot // immutable slice header after init
}

type slot struct {
	seq atomic.Uint64
	t   *kc.Task // see the ring's protocol for who may touch it
}

// init makes r a ring of n slots; n must be a power of two.
func (r *ring) init(n int) {
	r.slots = make([]slot, n)
	r.mask = uint64(n - 1)
	for i := range r.slots {
		r.slots[i].seq.Store(uint64(i))
	}
}

// push appends t and reports true, or reports false if r is full.
func (r *ring) push(t *kc.Task) bool {
	pos := r.tail.Load()
	for {
		s := &r.slots[pos&r.mask]
		seq := s.seq.Load()
		switch d := int64(seq - pos); {
		case d == 0:
			if r.tail.CompareAndSwap(pos, pos+1) {
				s.t = t
				s.seq.Store(pos + 1) // publish: the consumer's seq load acquires t
				return true
			}
			pos = r.tail.Load()
		case d < 0:
			return false // the slot still holds the item of the previous lap: full
		default:
			pos = r.tail.Load() // another producer took pos; catch up
		}
	}
}

// pop removes and returns the oldest task, or nil if r is (or looks) empty.
func (r *ring) pop() *kc.Task {
	pos := r.head.Load()
	for {
		s := &r.slots[pos&r.mask]
		seq := s.seq.Load()
		switch d := int64(seq - (pos + 1)); {
		case d == 0:
			if r.head.CompareAndSwap(pos, pos+1) {
				t := s.t
				s.t = nil
				s.seq.Store(pos + r.mask + 1) // hand the slot to the next lap's producer
				return t
			}
			pos = r.head.Load()
		case d < 0:
			return nil // not filled yet: empty, or a producer mid-push
		default:
			pos = r.head.Load()
		}
	}
}

// len is about how many tasks r holds (head and tail are loaded one after
// the other, head first, so it is never negative). Advisory, like empty.
func (r *ring) len() int64 {
	h := r.head.Load()
	return int64(r.tail.Load() - h)
}

// empty reports whether r held nothing at some instant during the call.
// It is advisory (sysmon, wake decisions); pop is the authority.
func (r *ring) empty() bool { return r.head.Load() >= r.tail.Load() }

// globalQueue is spec 05's global run queue: a ring for the common case and
// a mutex-protected overflow list for bursts the ring cannot hold, so push
// never blocks and never fails. The zero value is not usable; call init.
// While the overflow list holds tasks, push appends there even if the ring
// has room, and pop empties the ring before the list: so the queue is FIFO
// (up to pushes racing with the list's last pop), and a task on the list
// cannot be overtaken for ever by pushes that keep the ring from emptying.
type globalQueue struct {
	ring ring
	n    atomic.Int64 // len(over)-head, changed under mu; read without it as a hint
	mu   sync.Mutex
	over []*kc.Task // overflow FIFO from head on; under mu
	head int        // under mu
}

func (q *globalQueue) init(n int) { q.ring.init(n) }

// push appends t. It takes the mutex only when the ring is full or the
// overflow list holds tasks (n is a hint read without the mutex: a push
// that misses the list's first task goes to the ring, ahead of it, which
// only reorders tasks pushed at the same moment).
func (q *globalQueue) push(t *kc.Task) {
	if q.n.Load() == 0 && q.ring.push(t) {
		return
	}
	q.mu.Lock()
	q.over = append(q.over, t)
	q.n.Add(1)
	q.mu.Unlock()
}

// pop returns a task or nil. The ring is drained first; the overflow list
// is only locked when its count says it holds something.
func (q *globalQueue) pop() *kc.Task {
	if t := q.ring.pop(); t != nil {
		return t
	}
	if q.n.Load() == 0 {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.over) {
		return nil
	}
	t := q.over[q.head]
	q.over[q.head] = nil
	q.head++
	q.n.Add(-1)
	if q.head == len(q.over) {
		q.over, q.head = q.over[:0], 0
	}
	return t
}

// empty is an advisory emptiness check, like ring.empty.
func (q *globalQueue) empty() bool { return q.ring.empty() && q.n.Load() == 0 }
