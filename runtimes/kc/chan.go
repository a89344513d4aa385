package kc

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Chan is a cancellation-aware channel of T values (spec 05 "Channels"):
// buffered when made with a positive capacity, a rendezvous when made with
// capacity 0. Unlike a Go channel, a blocked Send or Recv parks through the
// waiting job's executor (so a backend with a fixed set of workers can
// compensate) and ends early, with the job's cancellation error, when that
// job is cancelled; sending on a closed channel is an error, not a panic.
//
// The zero Chan is not usable; make one with NewChan. A Chan is not tied to
// a runtime: jobs of several runtimes and plain goroutines (which pass a nil
// job) may share one. All methods are safe for concurrent use.
//
// Cost: an operation that does not block takes the channel's mutex once and
// allocates nothing; one that blocks allocates its wait node, unless one
// of the channel's two own wait nodes is free (a Chan keeps the nodes of
// its first two blocked operations and reuses them, so a ping-pong, or a
// full buffer and its reader, allocates nothing once warm).
//
// Ordering: values are received in the order they were sent (for one
// sender), blocked senders and receivers are served first come first served,
// and a value handed to a blocked receiver is never lost: the handoff and a
// cancellation of the receiver race through one compare-and-swap on the
// receiver's wait node, so exactly one of them happens (spec 05's
// "notified" word). This is where kc departs from spec 05's rendezvous rule
// (no abort after the commit point): a parked Send or Recv can be cancelled,
// but never half done.
type Chan[T any] struct {
	mu sync.Mutex // protects every field below

	buf    []T // ring of len(buf) == capacity
	head   int // index of the oldest buffered value
	count  int // buffered values
	closed error
	recvq  waitq[T] // blocked receivers (and select receive cases); non-empty only when count == 0
	sendq  waitq[T] // blocked senders (and select send cases); non-empty only when count == len(buf)

	// own has bit i set while the channel has its own wait node of home i
	// (chanOp.home), at home or in use (newOp, putOp, dropOp). Two homes:
	// a blocked Send and a blocked Recv can overlap, the one woken not yet
	// back when the other blocks (a full buffer and its reader).
	own uint8
	// spare[i] is the own node of home i while no blocked operation holds
	// it, zeroed; nil while one does, or while the channel has none. Only
	// the holder of that node writes it (its putOp stores the node, and
	// newOp, under mu, takes it back with a nil store), so it has one
	// writer at a time and needs no read-modify-write: newOp's atomic load
	// sees the zeroed node through putOp's release store.
	spare [ownNodes]atomic.Pointer[chanOp[T]]
}

var (
	// ErrWouldBlock is returned by TrySend, TryRecv and TrySelect when the
	// operation cannot proceed at once.
	ErrWouldBlock = errors.New("kc: operation would block")

	// ErrNilChan is returned by the operations of a nil *Chan (where a Go
	// channel would block forever or panic). In a Select, a case on a nil
	// *Chan is never ready instead.
	ErrNilChan = errors.New("kc: nil channel")

	// ErrRepeatedCase is returned by Select and TrySelect when one
	// SelectCase value is given twice: a case has one wait node, which
	// cannot wait on a channel's queue twice. Nothing is performed or
	// queued.
	ErrRepeatedCase = errors.New("kc: select case repeated")

	// ErrBadCapacity is returned by NewChan, NewActor, Produce and NewPool
	// for a negative (or, for a pool, non-positive) capacity.
	ErrBadCapacity = errors.New("kc: bad capacity")
)

// ChanClosedError is what operations on a channel closed with
// CloseWithError return: it matches ErrClosed and unwraps to the cause.
type ChanClosedError struct {
	Cause error
}

func (e *ChanClosedError) Error() string { return "kc: channel closed: " + e.Cause.Error() }

// Unwrap makes errors.Is match both ErrClosed and the cause.
func (e *ChanClosedError) Unwrap() []error { return []error{ErrClosed, e.Cause} }

// NewChan returns a channel that buffers up to capacity values; 0 makes a
// rendezvous channel, on which a Send waits for a Recv. A negative capacity
// is ErrBadCapacity.
func NewChan[T any](capacity int) (*Chan[T], error) {
	if capacity < 0 {
		return nil, ErrBadCapacity
	}
	return &Chan[T]{buf: make([]T, capacity)}, nil
}

// Cap returns the channel's capacity.
func (c *Chan[T]) Cap() int {
	if c == nil {
		return 0
	}
	return len(c.buf)
}

// Len returns how many values are buffered.
func (c *Chan[T]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count
}

// Blocked returns how many senders and receivers wait on the channel
// (a waiting Select counts once for each of its cases on the channel).
func (c *Chan[T]) Blocked() (senders, receivers int) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sendq.n, c.recvq.n
}

// Send sends v, waiting while the channel is full (or, unbuffered, until a
// receiver takes it). The wait is cancellable through j, the sending job (nil
// from a plain goroutine): if j is cancelled first, or already is, Send
// returns j's cancellation error and v is not sent. On a closed channel Send
// returns ErrClosed (a *ChanClosedError after CloseWithError).
func (c *Chan[T]) Send(j *Job, v T) error {
	if c == nil {
		return ErrNilChan
	}
	c.mu.Lock()
	if j != nil && j.cancelSeen() { // under c.mu: see cancelSeen
		c.mu.Unlock()
		return j.cancelledErr()
	}
	if done, err, wake := c.sendLocked(&v); done {
		c.unlockWake(wake)
		return err
	}
	op := c.newOp(j, v)
	c.sendq.push(&op.s)
	c.mu.Unlock()
	_, err := c.await(op)
	return err
}

// TrySend sends v if it can do so at once: ErrWouldBlock if the channel is
// full (or, unbuffered, no receiver waits), ErrClosed if it is closed.
func (c *Chan[T]) TrySend(v T) error {
	if c == nil {
		return ErrNilChan
	}
	c.mu.Lock()
	if done, err, wake := c.sendLocked(&v); done {
		c.unlockWake(wake)
		return err
	}
	c.mu.Unlock()
	return ErrWouldBlock
}

// Recv receives the next value, waiting while the channel is empty. Once
// the channel is closed and drained it returns ErrClosed (a
// *ChanClosedError after CloseWithError). The wait is cancellable through j
// like Send's; a value that was already handed to this Recv is never lost.
func (c *Chan[T]) Recv(j *Job) (T, error) {
	var v T
	if c == nil {
		return v, ErrNilChan
	}
	c.mu.Lock()
	if j != nil && j.cancelSeen() { // under c.mu: see cancelSeen
		c.mu.Unlock()
		return v, j.cancelledErr()
	}
	if done, err, wake := c.recvLocked(&v); done {
		c.unlockWake(wake)
		return v, err
	}
	op := c.newOp(j, v)
	c.recvq.push(&op.s)
	c.mu.Unlock()
	return c.await(op)
}

// TryRecv receives a value if one is ready: ErrWouldBlock if the channel is
// empty and open, ErrClosed once it is closed and drained.
func (c *Chan[T]) TryRecv() (T, error) {
	var v T
	if c == nil {
		return v, ErrNilChan
	}
	c.mu.Lock()
	if done, err, wake := c.recvLocked(&v); done {
		c.unlockWake(wake)
		return v, err
	}
	c.mu.Unlock()
	return v, ErrWouldBlock
}

// Close closes the channel: buffered values can still be received, then
// Recv returns ErrClosed; blocked and later senders get ErrClosed. Closing
// a closed channel returns ErrClosed and changes nothing.
func (c *Chan[T]) Close() error { return c.close(ErrClosed) }

// CloseWithError closes the channel like Close, but operations that find
// it closed return a *ChanClosedError wrapping cause (which matches
// ErrClosed too). A nil cause is the same as Close.
func (c *Chan[T]) CloseWithError(cause error) error {
	if cause == nil {
		return c.Close()
	}
	return c.close(&ChanClosedError{Cause: cause})
}

func (c *Chan[T]) close(err error) error {
	if c == nil {
		return ErrNilChan
	}
	c.mu.Lock()
	if c.closed != nil {
		c.mu.Unlock()
		return ErrClosed
	}
	c.closed = err
	var woken []*sudog[T]
	for _, q := range []*waitq[T]{&c.recvq, &c.sendq} {
		for s := q.pop(); s != nil; s = q.pop() {
			if s.claim() {
				s.closed = true
				woken = append(woken, s)
			}
		}
	}
	c.mu.Unlock()
	for _, s := range woken {
		s.w.unpark()
	}
	return nil
}

// closedErr returns the error for an operation that found c closed.
func (c *Chan[T]) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// await waits out op, a blocked Send or Recv queued on c, and returns its
// result and the value op holds (a Recv's), then gives op back to c if
// nobody else can still touch it (putOp), or else drops it (dropOp).
func (c *Chan[T]) await(op *chanOp[T]) (T, error) {
	reason, private := op.w.wait()
	off, err := c.finish(reason, &op.s)
	v := op.v
	if private && off {
		c.putOp(op)
	} else {
		c.dropOp(op)
	}
	return v, err
}

// finish turns the wake of a blocked Send or Recv into its result: the
// handoff happened (nil), the channel closed, or the wait was cancelled, in
// which case the wait node is taken off the queue if nobody else took it.
// off reports that s is off every queue (always, unless a fault leaves it
// on), so that no counterpart can reach it any more.
func (c *Chan[T]) finish(reason uint32, s *sudog[T]) (off bool, err error) {
	if reason >= wakeCase {
		if s.closed {
			return true, c.closedErr()
		}
		return true, nil
	}
	j := s.w.job
	off = !j.rt.faults.has(faultChanCancelNoDequeue)
	c.mu.Lock()
	if s.q != nil && off {
		s.q.remove(s)
	}
	c.mu.Unlock()
	return off, j.cancelledErr()
}
