// Package sleepq is the sleep queue that the stealing and vcore executors
// use for their AfterFunc (spec 05's sleep queue): timers as entries in
// per-P heaps of deadlines, so that stopping one, which a cancel walk does
// for every sleeper it ends, is one CAS.
package sleepq

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// Queue holds an executor's timers (its AfterFunc): one shard per P,
// each a min-heap of deadlines under a mutex with ONE runtime timer (a
// time.Timer) set for its earliest deadline. Arming pushes on the shard
// of the caller's P; Stop is a CAS on the entry and leaves it in the heap
// (a lazy mark), so stopping a timer touches no lock and no runtime timer,
// which is what a cancel walk that ends thousands of sleeps pays per
// sleeper. Stopped entries leave the heap when they reach its top and
// fire, or when the heap is compacted: a push that finds the heap at its
// limit drops every stopped entry, and the limit becomes twice what stays
// (at least minCompact), so a heap never holds more than twice its live
// entries at the last compaction plus minCompact, and compaction costs
// O(1) per push, amortized.
//
// A shard's runtime timer fires on a goroutine of its own (time.AfterFunc),
// whatever the executor's workers are doing, so timers are on time even
// when every worker is busy. The fire takes every due entry whose CAS from
// sleeperPending it wins, sets the runtime timer for the new earliest
// deadline and, unlocked, runs the entries' functions: the last on the
// fire's goroutine, the others each on a new goroutine, as time.AfterFunc
// would, so a function that blocks delays no other.
//
// Goroutines: every fire the shards have scheduled or started, and every
// goroutine a fire starts, is counted in the WaitGroup given to Init (see
// arm), so the executor's Close, which calls Close (stopping the runtime
// timers) and then waits on that WaitGroup, waits for them.
//
// Cost: AfterFunc is an allocation, a pin to read the P, a heap push under
// the shard's mutex and, when the new deadline is the shard's earliest, a
// Reset of its runtime timer; Stop is one CAS.
//
// The zero Queue is not ready: Init sets it up once, before any other
// call.
type Queue struct {
	shards []shard         // one per P at Init; immutable slice
	wg     *sync.WaitGroup // the executor's; immutable
	owner  string          // the executor's name, for panics; immutable
}

// minCompact is the smallest compaction limit of a shard's heap.
const minCompact = 64

// shard is one heap of deadlines and its runtime timer.
type shard struct {
	q  *Queue
	mu sync.Mutex
	h  []*Timer // under mu: a min-heap by when
	// limit is the heap length at which the next push compacts. Under mu.
	limit int
	// timer is the runtime timer, nil until the first arm. Under mu.
	timer *time.Timer
	// armedAt is the deadline timer is set to fire at, 0 if it is not
	// set. A fire that finds it not after now knows that no later fire is
	// scheduled and sets it to 0 (see fire). Under mu.
	armedAt int64
	closed  bool // under mu: set by Close; the shard then refuses pushes
	_       [40]byte
}

// sleeperState is where an armed timer is in its life. Its transitions are
// CASes on Timer.state, so exactly one of a fire and a Stop wins.
type sleeperState = uint32

const (
	// sleeperPending: armed, neither fired nor stopped. Moves to
	// sleeperFired (a fire took it) or sleeperStopped (Stop).
	sleeperPending sleeperState = iota
	// sleeperFired: a fire took it; its function runs or has run. Final.
	sleeperFired
	// sleeperStopped: Stop prevented the call. Final; the entry stays in
	// its heap until it reaches the top or the heap is compacted.
	sleeperStopped
)

// Timer is one armed timer, what AfterFunc returns (a kc.Timer). when
// and f are written before it is pushed (under the shard's mutex) and
// never after; state is atomic, since Stop comes from any goroutine.
type Timer struct {
	when  int64 // the deadline, a Now reading
	f     func()
	state atomic.Uint32
}

// Stop prevents the call if it has not started, and reports whether it
// did: true only for the call whose CAS took the entry from
// sleeperPending, so a Stop racing with the fire gets an exact answer.
// After the queue's Close, which drops pending timers without calling
// them, Stop of one of those still reports true.
func (s *Timer) Stop() bool {
	return s.state.CompareAndSwap(sleeperPending, sleeperStopped)
}

// Init sets the queue up with n shards (n > 0: one per P is the intent;
// a P beyond n shares a shard); goroutines it starts are counted in wg.
// owner names the executor in AfterFunc's panics.
func (q *Queue) Init(n int, wg *sync.WaitGroup, owner string) {
	q.shards = make([]shard, n)
	q.wg = wg
	q.owner = owner
	for i := range q.shards {
		q.shards[i].q = q
		q.shards[i].limit = minCompact
	}
}

// AfterFunc arms a timer that calls f after d (at once if d <= 0) on the shard
// of the caller's P. A d too long for the clock (a "forever" wait, such as
// math.MaxInt64) saturates at the clock's end: the timer never fires, and the
// shard's other timers are not held up by it. It panics on a Queue that Init
// did not set up or that Close closed (the executor's AfterFunc after its
// Close).
func (q *Queue) AfterFunc(d time.Duration, f func()) *Timer {
	if q.shards == nil {
		panic(q.owner + ": AfterFunc on a zero Executor")
	}
	s := &Timer{when: deadline(Now(), d), f: f}
	pid := goruntime.ProcPin()
	goruntime.ProcUnpin()
	sh := &q.shards[pid%len(q.shards)]
	sh.mu.Lock()
	if sh.closed {
		sh.mu.Unlock()
		panic(q.owner + ": AfterFunc on a closed Executor")
	}
	if len(sh.h) >= sh.limit {
		sh.compact()
	}
	sh.push(s)
	if sh.armedAt == 0 || s.when < sh.armedAt {
		sh.arm(s.when)
	}
	sh.mu.Unlock()
	return s
}

// deadline is now+d on the queue's clock, d <= 0 counting as 0, saturated
// at math.MaxInt64 rather than wrapping (a wrapped, negative deadline would
// be due at once, and, as the shard's earliest, keep every later timer
// from being armed).
func deadline(now int64, d time.Duration) int64 {
	if d <= 0 {
		return now
	}
	if int64(d) > math.MaxInt64-now {
		return math.MaxInt64
	}
	return now + int64(d)
}

// arm sets the runtime timer for when. Each fire that this schedules, and
// not one that it replaces, is counted in wg (Reset reports whether a
// scheduled fire was still pending: then the new one replaces it). The
// caller holds mu.
func (sh *shard) arm(when int64) {
	sh.armedAt = when
	d := time.Duration(when - Now())
	if sh.timer == nil {
		sh.q.wg.Add(1)
		sh.timer = time.AfterFunc(d, sh.fire)
		return
	}
	if !sh.timer.Reset(d) {
		sh.q.wg.Add(1)
	}
}

// fire is the runtime timer's function: it takes the due entries, sets the
// timer for the next deadline and runs the functions it took (see
// Queue). A fire may find nothing due: the entries it was set for
// were stopped, or a Reset scheduled another fire while it was starting.
func (sh *shard) fire() {
	defer sh.q.wg.Done()
	var buf [4]*Timer
	due := buf[:0]
	sh.mu.Lock()
	if sh.closed {
		sh.mu.Unlock()
		return
	}
	now := Now()
	if sh.armedAt <= now {
		sh.armedAt = 0 // this fire, or one as late, was the one scheduled
	}
	for len(sh.h) > 0 && sh.h[0].when <= now {
		if s := sh.pop(); s.state.CompareAndSwap(sleeperPending, sleeperFired) {
			due = append(due, s)
		}
	}
	if len(sh.h) > 0 && (sh.armedAt == 0 || sh.h[0].when < sh.armedAt) {
		sh.arm(sh.h[0].when)
	}
	if len(due) > 1 {
		sh.q.wg.Add(len(due) - 1) // under mu: Close cannot be waiting yet
	}
	sh.mu.Unlock()
	for _, s := range due[:len(due)-min(len(due), 1)] {
		go func(f func()) {
			defer sh.q.wg.Done()
			f()
		}(s.f)
	}
	if len(due) > 0 {
		due[len(due)-1].f()
	}
}

// Close closes every shard: it stops their runtime timers and drops the
// heaps, with the timers still pending; later AfterFunc calls panic, and a
// fire already started finds its shard closed. A fire it prevents no
// longer counts in the WaitGroup; the caller then waits on it for the
// fires and functions still running. Close is idempotent.
func (q *Queue) Close() {
	for i := range q.shards {
		q.shards[i].close()
	}
}

// close is Close for one shard.
func (sh *shard) close() {
	sh.mu.Lock()
	sh.closed = true
	if sh.timer != nil && sh.timer.Stop() {
		sh.q.wg.Done()
	}
	sh.h = nil
	sh.armedAt = 0
	sh.mu.Unlock()
}

// compact drops the stopped entries, rebuilds the heap and sets the next
// compaction limit to twice what stays. The caller holds mu.
func (sh *shard) compact() {
	live := sh.h[:0]
	for _, s := range sh.h {
		if s.state.Load() == sleeperPending {
			live = append(live, s)
		}
	}
	clear(sh.h[len(live):]) // no stale pointers behind the length
	sh.h = live
	for i := len(live)/2 - 1; i >= 0; i-- {
		sh.down(i)
	}
	sh.limit = max(2*len(live), minCompact)
}

// push adds s to the heap. The caller holds mu.
func (sh *shard) push(s *Timer) {
	sh.h = append(sh.h, s)
	h := sh.h
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].when <= h[i].when {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

// pop removes and returns the earliest entry; the heap must not be empty.
// The caller holds mu.
func (sh *shard) pop() *Timer {
	h := sh.h
	s := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = nil
	sh.h = h[:n]
	sh.down(0)
	return s
}

// down moves the entry at i down to its place. The caller holds mu.
func (sh *shard) down(i int) {
	h := sh.h
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && h[r].when < h[l].when {
			c = r
		}
		if h[i].when <= h[c].when {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
