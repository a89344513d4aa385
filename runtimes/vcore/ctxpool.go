package vcore

import (
	"sync"
	"time"
)

// trimEvery is how often sysmon trims the idle context pool, by half of
// the smallest size the pool had since the last trim.
const trimEvery = 250 * time.Millisecond

// ctxPool holds idle contexts for reuse: a context made costs a
// goroutine's creation and its stack's growth the first time it runs a
// body, and a context stopped costs a switch and a goroutine's end. A burst
// of parks (a cancel walk's ten thousand sleepers) makes as many contexts,
// and the next burst reuses them; sysmon follows the load down instead,
// stopping half of the pool's low-water mark every trimEvery (trim), so
// that a pool nobody draws from empties within a few trims.
type ctxPool struct {
	mu     sync.Mutex
	idle   *ctx // under mu; linked through link
	n      int  // under mu: contexts in idle
	low    int  // under mu: the smallest n since the last trim; never above n
	closed bool // under mu
}

// get takes an idle context, or returns nil.
func (p *ctxPool) get() *ctx {
	p.mu.Lock()
	t := p.idle
	if t != nil {
		p.idle, t.link = t.link, nil
		p.n--
		p.low = min(p.low, p.n)
	}
	p.mu.Unlock()
	return t
}

// putAll pools ts, idle contexts whose owner stints have ended, under one
// lock, or stops them if the pool is closed. It keeps no reference to ts.
func (p *ctxPool) putAll(ts []*ctx) {
	for i, t := range ts {
		t.state = ctxIdle
		if i+1 < len(ts) {
			t.link = ts[i+1]
		}
	}
	last := ts[len(ts)-1]
	p.mu.Lock()
	if !p.closed {
		last.link = p.idle
		p.idle = ts[0]
		p.n += len(ts)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	for _, t := range ts {
		t.link = nil
		t.stop()
	}
}

// size is the number of idle contexts pooled.
func (p *ctxPool) size() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// trim stops half of the contexts the pool held at its low-water mark since
// the last trim (none of those was drawn all that time), rounded up, and
// starts a new low-water mark. Called by sysmon, an unlocked goroutine, as
// a switch to a context must be.
func (p *ctxPool) trim() {
	p.mu.Lock()
	k := (p.low + 1) / 2
	var ts *ctx
	for range k {
		t := p.idle
		p.idle = t.link
		t.link = ts
		ts = t
	}
	p.n -= k
	p.low = p.n
	p.mu.Unlock()
	for ts != nil {
		t := ts
		ts = t.link
		t.link = nil
		t.stop()
	}
}

// close stops every idle context and makes every later put stop its
// context instead. Close calls it once no owner can start any more.
func (p *ctxPool) close() {
	p.mu.Lock()
	t := p.idle
	p.idle, p.n, p.low, p.closed = nil, 0, 0, true // low <= n, which trim relies on
	p.mu.Unlock()
	for t != nil {
		next := t.link
		t.link = nil
		t.stop()
		t = next
	}
}
