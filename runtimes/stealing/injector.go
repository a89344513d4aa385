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
		r := &rings[pid]
		for took < share && r.pushBack(q.q[q.h]) {
			q.q[q.h] = nil
			q.h++
			took++
		}
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
