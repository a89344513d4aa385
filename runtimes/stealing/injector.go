package stealing

import (
	"sync"
	"sync/atomic"

	"github.com/kcbench/kcbench/runtimes/kc"
)

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

// pop removes up to len(batch) tasks into batch, oldest first, and returns
// how many. It takes at most a share of the queue (a 1/nworkers part, like
// the Go runtime's globrunqget) so that one worker does not hoard it.
func (q *injector) pop(batch []*kc.Task, nworkers int) int {
	if q.n.Load() == 0 {
		return 0
	}
	q.mu.Lock()
	avail := len(q.q) - q.h
	n := min(avail/max(nworkers, 1)+1, avail, len(batch))
	copy(batch, q.q[q.h:q.h+n])
	clear(q.q[q.h : q.h+n])
	q.h += n
	if q.h == len(q.q) {
		q.q, q.h = q.q[:0], 0
	}
	q.n.Store(int64(len(q.q) - q.h))
	if n > 0 {
		q.pops.Add(1)
	}
	q.mu.Unlock()
	return n
}

// empty reports whether no task is queued (a lock-free hint).
func (q *injector) empty() bool { return q.n.Load() == 0 }
