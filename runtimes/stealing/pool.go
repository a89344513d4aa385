package stealing

import (
	"sync"
	"sync/atomic"
	"time"
)

// trimEvery is how often the monitor trims the idle coroutine pool, by
// half of the smallest size the pool had since the last trim.
const trimEvery = 250 * time.Millisecond

// coroPool holds idle loop coroutines (coroIdle: stopped at their loop's
// yield between tasks), for drivers that need one to go on after a
// coroutine parked. It is unbounded and follows the load: after a burst of
// parked tasks it holds as many coroutines as were parked at once, and the
// monitor takes back half of its low-water mark every trimEvery, so
// coroutines the load keeps using are not ended and made again, and
// coroutines it stopped using go within a few trims. A LIFO (the most
// recently used coroutine has the warmest stack) under a mutex.
type coroPool struct {
	// size is n, for lock-free looks (the monitor). Written under mu.
	size atomic.Int32
	mu   sync.Mutex
	top  *coro // under mu; the stack, through link
	n    int   // under mu
	low  int   // under mu: the smallest n since the last trim
}

// idleStash is how many idle coroutines a driver keeps for itself (see
// stashIdle) before it moves them to the pool in one locked section.
const idleStash = 16

// stashIdle makes c, which d just ran, idle: d keeps it in its own stash,
// for the next coroutine it needs (takeIdle), without a lock; a full stash
// moves to the pool with c, under one lock. A wake that resumes thousands
// of coroutines (a cancel walk) thus leaves thousands idle at a cost of one
// pool lock per idleStash of them, instead of both drivers taking the
// pool's mutex for each. The stash belongs to d: its driver goroutine, or
// the coroutine running for it (see worker).
func (e *Executor) stashIdle(d *worker, c *coro) {
	c.state = coroIdle
	c.link = d.idle
	d.idle = c
	if d.nidle++; d.nidle > idleStash {
		e.flushIdle(d)
	}
}

// takeIdle returns an idle coroutine for d: from its stash, else from the
// pool; nil if there is none.
func (e *Executor) takeIdle(d *worker) *coro {
	if c := d.idle; c != nil {
		d.idle = c.link
		c.link = nil
		d.nidle--
		return c
	}
	return e.pool.get()
}

// flushIdle moves d's stash to the pool, so that the monitor's trims and
// Close see it: d's driver calls it before it stops running tasks (it goes
// idle, leaves, exits, or a body ended it), and stashIdle when the stash is
// full. A driver busy with a task keeps at most idleStash coroutines aside.
// Putting into an empty pool wakes the monitor if it sleeps without a trim
// pending, so that the trimming resumes: flushIdle stores size and then
// loads noTrim; the monitor stores noTrim and then loads size (seq-cst
// both).
func (e *Executor) flushIdle(d *worker) {
	cs, k := d.idle, d.nidle
	if cs == nil {
		return
	}
	d.idle, d.nidle = nil, 0
	last := cs
	for last.link != nil {
		last = last.link
	}
	p := &e.pool
	p.mu.Lock()
	last.link = p.top
	p.top = cs
	p.n += k
	p.size.Store(int32(p.n))
	first := p.n == k
	p.mu.Unlock()
	if first && e.mon.noTrim.Load() {
		e.mon.wake()
	}
}

// get takes an idle coroutine, or returns nil if there is none.
func (p *coroPool) get() *coro {
	if p.size.Load() == 0 {
		return nil
	}
	p.mu.Lock()
	c := p.top
	if c != nil {
		p.top = c.link
		c.link = nil
		p.n--
		p.low = min(p.low, p.n)
		p.size.Store(int32(p.n))
	}
	p.mu.Unlock()
	return c
}

// trim stops half of the coroutines the pool held at its low-water mark
// since the last trim (they were not needed all that time), rounded up so
// that an unused pool empties and the monitor can sleep without a trim
// pending, and starts a new low-water mark. It returns how many it
// stopped. Called by the monitor.
func (p *coroPool) trim() int {
	p.mu.Lock()
	k := (p.low + 1) / 2
	var cs *coro
	for range k {
		c := p.top
		p.top = c.link
		c.link = cs
		cs = c
	}
	p.n -= k
	p.low = p.n
	p.size.Store(int32(p.n))
	p.mu.Unlock()
	stopAll(cs)
	return k
}

// drain stops every idle coroutine. Close calls it once no driver is left.
func (p *coroPool) drain() {
	p.mu.Lock()
	cs := p.top
	p.top, p.n, p.low = nil, 0, 0
	p.size.Store(0)
	p.mu.Unlock()
	stopAll(cs)
}

// stopAll ends the idle coroutines of the chain cs: each one's yield
// reports false, its loop returns and it unregisters itself.
func stopAll(cs *coro) {
	for cs != nil {
		c := cs
		cs = c.link
		c.link = nil
		c.stop()
	}
}
