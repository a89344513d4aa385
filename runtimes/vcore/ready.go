package vcore

import (
	"sync"
	"sync/atomic"
)

// readyQueue is a core's queue of woken contexts (ctx.go), oldest first:
// spec 05's fiber resumption entries. Resume pushes from any goroutine;
// the core's owner pops (poll, ownerFor), and so do idle owners of other
// cores and helpers: every pop is a whole critical section, so nothing
// waits in anyone's hands but the context it runs, and a body that blocks
// where the runtime cannot see leaves the queue to others (sysmon counts
// it as work waiting).
type readyQueue struct {
	// n is the number of contexts queued. Written under mu; loaded
	// without it as the queue's emptiness hint, which is the pusher's
	// half of the sleep handshake (core.go): Resume adds to n, then
	// kicks (loads the core's word); a sleeper stores Sleeping, then
	// loads n (idle). Other cores' owners also load it as a length
	// hint (poll leaves a lone context to the core's owner).
	n    atomic.Int32
	mu   sync.Mutex
	head *ctx // under mu; linked through link
	tail *ctx // under mu
}

// push appends t.
func (q *readyQueue) push(t *ctx) {
	q.mu.Lock()
	t.link = nil
	if q.tail == nil {
		q.head = t
	} else {
		q.tail.link = t
	}
	q.tail = t
	q.n.Add(1)
	q.mu.Unlock()
}

// pop removes and returns the oldest context, or nil, and the one after
// it, which the caller may prefetch (it may be gone by the time it is
// touched: only a prefetch may use it).
func (q *readyQueue) pop() (t, after *ctx) {
	if q.n.Load() == 0 {
		return nil, nil
	}
	q.mu.Lock()
	t = q.head
	if t != nil {
		q.head = t.link
		if q.head == nil {
			q.tail = nil
		}
		t.link = nil
		q.n.Add(-1)
		after = q.head
	}
	q.mu.Unlock()
	return t, after
}

// empty reports whether the queue looked empty. Advisory.
func (q *readyQueue) empty() bool { return q.n.Load() == 0 }

// popReady pops the oldest context of c's ready queue and prefetches the
// one after it, the likely next resume on this core.
func popReady(c *core) *ctx {
	t, after := c.ready.pop()
	if after != nil {
		after.prefetch()
	}
	return t
}
