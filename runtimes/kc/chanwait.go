package kc

import (
	"sync"
	"unsafe"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// Blocking channel operations: spec 05's wait nodes, on kc's Parker.
//
// A blocked Send, Recv or Select owns one chanWaiter (its Parker, and a
// cancel hook on the waiting job) and puts one sudog per channel operation
// on that channel's queue: one for Send and Recv, one per case for Select.
// The waiter's Parker.reason is the "notified" word of spec 05. It starts at
// 0 and is set exactly once, by compare-and-swap, by whoever wakes the
// waiter first:
//
//   - a counterpart (a Send for a blocked Recv, a Recv for a blocked Send,
//     Close for either) sets wakeCase+i, i being the index of the sudog's
//     case, *then* moves the value and marks a close, and only then unparks
//     the waiter: the value is in place before the waiter can run;
//   - the waiting job's cancellation sets wakeCancel: its cancel walk, a
//     claim that finds the job cancelled (cancelSeen), or the arm of a wait
//     whose job was cancelled before its hook went on (hookFireNow).
//
// Winning the CAS is what commits an operation: a counterpart that loses it
// skips that sudog (its owner was cancelled, or, in a Select, another case
// won) and tries the next one, so a value is never handed to a waiter that
// has stopped waiting and never lost. Sudogs are linked and unlinked only
// under their channel's mutex; the counterpart unlinks what it pops, and the
// owner, once awake, unlinks whatever is still linked.

// wakeCase is the first Parker reason of a channel wake: reason wakeCase+i
// says that the sudog of case i completed (a Send or Recv is case 0).
const wakeCase uint32 = 16

// chanWaiter is the wait node of one blocked channel operation or Select.
type chanWaiter struct {
	waiter      // p, and hook for the waiting job; its job-list fields are unused
	job    *Job // the waiting job; nil for a plain goroutine. Immutable.
	// how is addHook's result for the cancel hook (hookLinked and so on),
	// or hookUnarmed. Written by arm, read by wait; both on the waiting
	// goroutine.
	how uint8
}

// Parker.Wait finds a chanWaiter from its Parker (see Parker.arm): the
// Parker must be the struct's first field. This fails to compile otherwise.
var _ = [1]struct{}{}[unsafe.Offsetof(chanWaiter{}.waiter)+unsafe.Offsetof(waiter{}.p)]

// hookUnarmed is chanWaiter.how while the cancel hook is not registered:
// the wake came before Parker.Wait (a partner answered while the executor
// spun), so the hook never was.
const hookUnarmed = 255

// selectWaiters holds zeroed chanWaiters of finished Selects for reuse
// (newChanWaiter, putChanWaiter).
var selectWaiters = sync.Pool{New: func() any { return new(chanWaiter) }}

// newChanWaiter returns a waiter for a Select by j that is about to block;
// batch says whether one of its cases is on a buffered channel (Parker.Batch).
func newChanWaiter(j *Job, batch bool) *chanWaiter {
	w := selectWaiters.Get().(*chanWaiter)
	w.job = j
	w.p.init(j != nil)
	w.p.quick = true
	w.p.batch = batch
	return w
}

// putChanWaiter gives back the waiter of a finished Select. As for putOp,
// only when nobody else can still touch w: the Select has taken every
// sudog of w off its channel's queue (under the channel's mutex), the
// counterpart that won the wake has signalled it, and wait reported it
// private.
func putChanWaiter(w *chanWaiter) {
	*w = chanWaiter{}
	selectWaiters.Put(w)
}

// chanOp is a blocked Send or Recv: its waiter, its one sudog and the value
// sent or received, in one allocation. The first ownNodes a channel makes
// are its own (home), each of which goes back to the channel after each
// blocked Send or Recv, for the next one (see Chan.spare); one made while
// every own node is in use is left to the collector after its operation.
type chanOp[T any] struct {
	w    chanWaiter
	s    sudog[T]
	v    T
	home int8 // the index of its slot in Chan.spare if it is an own node, else -1; immutable
}

// ownNodes is how many wait nodes of its own a channel keeps.
const ownNodes = 2

// newOp returns a wait node for a Send or Recv by j that is about to block
// on c: an own node of the channel that is at home (one is made here while
// the channel has fewer than ownNodes), else a new one. c.mu is held.
func (c *Chan[T]) newOp(j *Job, v T) *chanOp[T] {
	op := c.takeOwn()
	op.w.job, op.v = j, v
	op.w.p.init(j != nil)
	op.w.p.quick = true
	op.w.p.batch = len(c.buf) > 0
	op.s.w, op.s.elem = &op.w, &op.v
	return op
}

// takeOwn returns an own node of c that is at home, or makes one if c has
// fewer than ownNodes, or else a new node that is not c's. c.mu is held.
// The load of a spare slot sees the node zeroed: putOp's release store
// published it. Taking it back with a plain store races with no other
// write: while an own node is at home nobody else holds it, so no putOp
// stores its slot, and other newOps wait for c.mu.
func (c *Chan[T]) takeOwn() *chanOp[T] {
	for i := range c.spare {
		if op := c.spare[i].Load(); op != nil {
			goruntime.StoreRelPointer(&c.spare[i], nil)
			return op
		}
	}
	for i := range c.spare {
		if c.own&(1<<i) == 0 {
			c.own |= 1 << i
			return &chanOp[T]{home: int8(i)}
		}
	}
	return &chanOp[T]{home: -1}
}

// putOp gives op, whose operation is over, back to c if it is an own node
// of c; another node is left to the collector. Its owner calls it last,
// and only when nobody else can still touch op: the counterpart that won
// op's wake has signalled its Parker (the wake's last touch), op is off
// c's queues, and the cancel hook was never linked or was unlinked by the
// owner itself (chanWaiter.wait's private result). Zeroed, op keeps no
// value or job alive and is as new for newOp.
func (c *Chan[T]) putOp(op *chanOp[T]) {
	h := op.home
	if h < 0 {
		return
	}
	*op = chanOp[T]{home: h}
	goruntime.StoreRelPointer(&c.spare[h], op) // publishes the zeroed node to takeOwn's load
}

// dropOp leaves op, whose operation is over but which someone else may
// still touch (see putOp), to the collector. If it was an own node of c,
// c makes a new one in its place at a later blocked Send or Recv.
func (c *Chan[T]) dropOp(op *chanOp[T]) {
	if op.home < 0 {
		return
	}
	c.mu.Lock()
	c.own &^= 1 << op.home
	c.mu.Unlock()
}

// wait parks until a counterpart or the cancellation of w.job wakes w, and
// returns the wake reason. The cancel hook is on w.job only while w blocks
// in Parker.Wait, which registers it (arm) after the executor's spin: a
// partner that answers during the spin (a ping-pong) spares the job's
// mutex twice. A cancellation during the spin is not missed: arm finds
// the cancel walk done (hookFireNow) and wakes w itself, and a counterpart
// meanwhile does not commit (claim checks cancelSeen). private reports
// whether only the counterpart that won the wake can have touched w: the
// hook was never linked, or the owner unlinked it itself. When it is
// false, the cancel walk of w.job detached the hook and may still be about
// to try its (losing) wake on w, so w must not be reused.
func (w *chanWaiter) wait() (reason uint32, private bool) {
	j := w.job
	if j == nil {
		w.p.Wait()
		return w.p.reason.Load(), true
	}
	w.how = hookUnarmed
	w.p.arm = true
	j.rt.ex.Park(&w.p)
	slowPoint()
	private = w.how != hookLinked
	if w.how == hookLinked {
		j.mu.Lock()
		private = j.removeHookLocked(&w.hook)
		j.mu.Unlock()
	}
	return w.p.reason.Load(), private
}

// arm registers w's cancel hook on w.job, unless the wake has come: Wait
// calls it on the waiting goroutine, once the executor is about to block
// (after its spin, if any). If the job's cancel walk has already run, the
// hook is fired here instead.
func (w *chanWaiter) arm() {
	if w.p.woken() {
		return
	}
	w.hook.w = &w.waiter
	w.how = uint8(w.job.addHook(&w.hook))
	if w.how == hookFireNow {
		w.p.wake(wakeCancel)
	}
}

// unpark wakes w after a counterpart won its CAS. It never blocks.
func (w *chanWaiter) unpark() { w.p.signal() }

// sudog is one operation of a chanWaiter on the queue of one channel.
// Every field but closed is under that channel's mutex; closed is written
// by the counterpart that won the CAS, before it unparks the owner.
type sudog[T any] struct {
	w          *chanWaiter
	idx        uint32    // case index (0 for Send and Recv); immutable
	elem       *T        // send: the value to send; recv: where to put it
	q          *waitq[T] // the queue it is on, nil when off
	prev, next *sudog[T]
	closed     bool // completed by Close, not by a handoff
}

// claim reports whether the caller, a counterpart holding s's channel's
// mutex, won the right to complete s. If s's job is cancelled (cancelSeen),
// its operation must not commit: claim then wakes it with wakeCancel
// instead (unless something else woke it first) and reports false. This
// covers a cancellation whose walk did not wake s's waiter: one that
// reached the job lazily (not listed), or came between the enqueue of s
// and the registration of the waiter's cancel hook.
func (s *sudog[T]) claim() bool {
	if j := s.w.job; j != nil && j.cancelSeen() && !j.rt.faults.has(faultChanCommitAfterCancel) {
		s.w.p.wake(wakeCancel)
		return false
	}
	return s.w.p.reason.CompareAndSwap(0, wakeCase+s.idx)
}

// waitq is a FIFO of sudogs; under its channel's mutex.
type waitq[T any] struct {
	head, tail *sudog[T]
	n          int // sudogs on the queue
}

func (q *waitq[T]) push(s *sudog[T]) {
	s.q, s.prev, s.next = q, q.tail, nil
	if q.tail != nil {
		q.tail.next = s
	} else {
		q.head = s
	}
	q.tail = s
	q.n++
}

func (q *waitq[T]) pop() *sudog[T] {
	s := q.head
	if s != nil {
		q.remove(s)
	}
	return s
}

func (q *waitq[T]) remove(s *sudog[T]) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		q.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		q.tail = s.prev
	}
	s.q, s.prev, s.next = nil, nil, nil
	q.n--
}

// sendLocked tries to send *v without blocking; c.mu is held and stays
// held. done reports whether the send is settled: sent (err nil) or refused
// for good (err is the close error). wake, if not nil, is a receiver that
// got the value and must be unparked once c.mu is released.
func (c *Chan[T]) sendLocked(v *T) (done bool, err error, wake *chanWaiter) {
	if c.closed != nil {
		return true, c.closed, nil
	}
	for r := c.recvq.pop(); r != nil; r = c.recvq.pop() {
		if r.claim() {
			*r.elem = *v
			return true, nil, r.w
		}
	}
	if c.count < len(c.buf) {
		c.buf[c.tail()] = *v
		c.count++
		return true, nil, nil
	}
	return false, nil, nil
}

// tail is the index of the buffer slot after the last buffered value;
// c.mu is held. It wraps with a compare rather than a modulo: head <
// len(buf) and count <= len(buf), so one subtraction is enough, where a
// division by the variable length would cost tens of cycles per op.
func (c *Chan[T]) tail() int {
	i := c.head + c.count
	if i >= len(c.buf) {
		i -= len(c.buf)
	}
	return i
}

// recvLocked tries to receive into *v without blocking, like sendLocked:
// from the buffer (refilling it from the first blocked sender), straight
// from a blocked sender when unbuffered, or the close error once closed and
// drained.
func (c *Chan[T]) recvLocked(v *T) (done bool, err error, wake *chanWaiter) {
	if c.count > 0 {
		var zero T
		*v, c.buf[c.head] = c.buf[c.head], zero
		if c.head++; c.head == len(c.buf) {
			c.head = 0
		}
		c.count--
		for s := c.sendq.pop(); s != nil; s = c.sendq.pop() {
			if s.claim() {
				c.buf[c.tail()] = *s.elem
				c.count++
				return true, nil, s.w
			}
		}
		return true, nil, nil
	}
	for s := c.sendq.pop(); s != nil; s = c.sendq.pop() {
		if s.claim() {
			*v = *s.elem
			return true, nil, s.w
		}
	}
	if c.closed != nil {
		return true, c.closed, nil
	}
	return false, nil, nil
}

// unlockWake releases c.mu, then unparks wake if there is one.
func (c *Chan[T]) unlockWake(wake *chanWaiter) {
	c.mu.Unlock()
	if wake != nil {
		wake.unpark()
	}
}
