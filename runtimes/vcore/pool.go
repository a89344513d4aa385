package vcore

import (
	"sync"
	"sync/atomic"

	"golang.org/x/sys/cpu"
)

// poolMax bounds the idle owner goroutines kept for reuse. A WaitersStorm
// or CancelFanout of n waiters hands its core to a fresh owner at each of
// its n parks and retires n coreless goroutines after the wake, so the pool
// covers bursts of that size, a thousand tasks parked at once included;
// past it, a retiring goroutine ends. An idle pooled goroutine costs its
// stack, which the garbage collector shrinks while it waits: a few KiB.
const poolMax = 1024

// Owner goroutines, and driver goroutines (drive.go), are reused.
//
// Every Park that finds work waiting gives its core to a fresh owner, and
// every woken task that finds no Free core retires its goroutine once its
// body returns: two ends of one stream of goroutines. A go statement per
// fresh owner costs the goroutine's creation and, because the new stack
// starts small, its growth (copystack) the first time it runs a body; a
// retired goroutine has already paid both. So a goroutine whose workerMain
// returns waits in the pool for the next owner to start instead of ending,
// up to poolMax of them, until Close. With owners as contexts, the pool
// holds idle drivers instead, handed a context to drive or an owner to
// start on one (ownerStart), and the contexts have a pool of their own
// (ctxPool).
type gpool struct {
	mu     sync.Mutex
	idle   []*idle // each idle goroutine's hand-off point (pool_park.go); under mu
	closed bool    // set by close; under mu

	// n is len(idle), stored under mu after every change of idle; put
	// loads it without mu to turn a retiring goroutine away from a full
	// pool without taking the lock (a burst of thousands of retirements,
	// CancelFanout's, would otherwise queue on it). Advisory: put decides
	// under mu. On a cache line of its own: each retiring goroutine loads
	// it, and the lock word and the executor's WaitGroup (which each
	// ending goroutine decrements) would otherwise share its line.
	_ cpu.CacheLinePad
	n atomic.Int32
	_ cpu.CacheLinePad
}

// ownerStart is what an owner needs to start: its owner id and the core
// whose word already says Running(id); or, with owners as contexts
// (ctx.go), a context to drive (a ready one, granted its core).
type ownerStart struct {
	id uint64
	c  *core
	t  *ctx
}

// get takes an idle goroutine's hand-off point, or returns nil if none
// waits.
func (p *gpool) get() *idle {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	x := p.idle[n-1]
	p.idle[n-1] = nil
	p.idle = p.idle[:n-1]
	p.n.Store(int32(n - 1))
	return x
}

// put offers the calling goroutine, reachable through x, for reuse: it
// arms x and adds it to the pool. It reports false if the pool is full or
// closed: the goroutine then ends.
func (p *gpool) put(x *idle) bool {
	if p.n.Load() >= poolMax {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.idle) >= poolMax {
		return false
	}
	x.arm() // only once admitted: a goroutine turned away never touches x
	p.idle = append(p.idle, x)
	p.n.Store(int32(len(p.idle)))
	return true
}

// close ends every idle goroutine (its hand-off point is closed) and makes
// every later put fail. Close calls it once no owner can be started any
// more.
func (p *gpool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, x := range p.idle {
		x.close()
	}
	p.idle = nil
	p.n.Store(0)
}

// startWorker starts an owner named id for c (ownerFor), on an idle pooled
// goroutine if there is one (runElsewhere); the caller has already moved
// c.word to Running(id).
func (e *Executor) startWorker(id uint64, c *core) {
	e.stats.workersStarted.Add(1)
	e.runElsewhere(e.ownerFor(id, c))
}

// ownerLoop is an owner goroutine's life: workerMain for each owner it is
// given, waiting in the pool in between. The goroutine has one worker
// record, made here with the goroutine, and starts it under each owner's
// id (worker.start), so a hand-off in Park allocates nothing: its wake
// channel, which the goroutine's first sleep makes (most owners started
// for a burst of parks never sleep, as the task they run parks in its
// turn), serves every later owner too. Its hand-off point is made here as
// well, and not when it retires: a burst of retirements is a burst of
// wake-ups (the cancel of a thousand sleepers), and an allocation there
// pays the garbage collector's assists for the goroutines the burst
// started with.
func (e *Executor) ownerLoop(s ownerStart) {
	defer e.wg.Done()
	w := new(worker)
	x := newIdle()
	for {
		w.start(s.id)
		e.workerMain(w, s.c)
		if !e.pool.put(x) {
			return
		}
		var ok bool
		if s, ok = x.wait(); !ok {
			return
		}
	}
}
