package stealing

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/internal/sleepq"
	"github.com/kcbench/kcbench/internal/startgate"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Executor is the work-stealing kc.Executor. Create one with New. The zero
// Executor is not usable: Spawn on it panics with a clear message, and its
// Close returns nil at once. Its methods are safe for concurrent use.
type Executor struct {
	rings   []ring      // one per P at New; immutable slice
	readies []readySlot // one per ring: coroutines woken on that P
	debt    []shard     // one per ring: tasks back from Park's blocking path, running without a slot
	inj     injector    // the global queue
	readyQ  readyList   // the global list of ready coroutines
	yieldQ  readyList   // coroutines whose task yielded (see Yield)
	gt      gtable      // the live loop coroutines, by goroutine
	pool    coroPool    // idle loop coroutines
	base    int32       // the target number of running workers; immutable
	cap     int32       // most temporary workers the monitor may add; immutable
	sched   schedState  // the counters of the wake protocol
	quit    chan struct{}
	idle    chan struct{} // unbuffered: a send succeeds only if an idle worker takes it
	mon     monitorState
	wg      sync.WaitGroup // every goroutine started: workers and the monitor
	starts  startgate.Gate // orders startSpinner's wg.Add before Close's wg.Wait
	once    sync.Once      // closes quit
	sleepQ  sleepq.Queue   // the timers of AfterFunc (internal/sleepq)
	// timerSpin is the spin budget of short timers (timerwait.go):
	// timerSpin, or what an internal test set before any task ran.
	timerSpin time.Duration
	tstats    timerStats
}

// schedState holds the counters that Spawn, Park and the workers use to
// decide whether to wake a worker (the Go runtime's wakep protocol, see
// worker.go). Each sits on a cache line of its own: running and spinning
// change with every park and steal, extra only when the monitor acts.
type schedState struct {
	// running counts workers that hold a slot: searching, spinning or
	// running a task that has not blocked in Park. Incremented by whoever
	// wakes or starts a worker (wake, on its behalf, before it runs) and by
	// a worker that takes a slot back (findWork's last look before it goes
	// idle, retire's undo); decremented by a worker going idle, retiring or
	// ending (a driver's exit, also by Goexit), by Park on its blocking
	// path, and by the undos of wake and startSpinner. A task back from
	// Park runs without a slot (see Executor.debt).
	running atomic.Int32
	_       [60]byte
	// spinning counts workers that are spinning: looking for work to steal.
	// Incremented by a worker that starts to spin or by the waker of a
	// worker (which is born spinning); decremented when it stops.
	spinning atomic.Int32
	_        [60]byte
	// extra is the number of temporary workers the monitor has granted on
	// top of base; only the monitor writes it. Atomic only so that readers
	// (limit) see a whole value; no ordering rides on it: a stale limit
	// just wakes one worker too many or too few, which retire and the
	// monitor correct.
	extra atomic.Int32
	_     [60]byte
	// idle counts workers blocked in idleWait; written by them only. It only
	// bounds the idle pool (a race can keep one worker more or fewer).
	idle atomic.Int32
	// closed is set once by Close before it closes quit. A worker or the
	// monitor that loads true stops starting goroutines and exits; blocked
	// ones learn it from quit (the close orders everything before it).
	closed atomic.Bool
}

// shard is one cache line holding a counter. A debt shard is incremented
// by a task coming back from Park (on the shard of its P, so a burst of
// wake-ups on different Ps does not contend) and decremented, never below
// zero, by the CAS of a worker that pays the debt. Their sum is how many
// more goroutines are running tasks than running counts. No ordering rides
// on them: each is a count, read and changed with RMW operations.
type shard struct {
	n atomic.Int32
	_ [60]byte
}

// New returns an executor with one ring per P (GOMAXPROCS at the time of
// the call), or an *OptionError (matching ErrOption). It starts the monitor
// goroutine (asleep until work is queued); workers start on demand. All of
// them end at Close. Cost: about 2.5 KB per P.
func New(opts ...Option) (*Executor, error) {
	procs := runtime.GOMAXPROCS(0)
	c, err := newConfig(procs, opts)
	if err != nil {
		return nil, err
	}
	e := &Executor{
		rings:   make([]ring, procs),
		readies: make([]readySlot, procs),
		debt:    make([]shard, procs),
		base:    int32(c.workers),
		cap:     int32(c.maxExtra),
		quit:    make(chan struct{}),
		idle:    make(chan struct{}),

		timerSpin: timerSpin,
	}
	e.mon.init()
	e.sleepQ.Init(procs, &e.wg, "stealing")
	if !c.noMonitor {
		e.wg.Add(1)
		go e.monitor()
	}
	return e, nil
}

// Name returns "stealing".
func (*Executor) Name() string { return "stealing" }

// Spawn queues t on the ring of the caller's P: into the LIFO slot, the
// previous occupant moving to the FIFO (or being dropped if an await already
// ran it). It wakes a worker if none is spinning and fewer than the target
// are running. Cost: a pin, a swap, two stores (plain on amd64) and a few
// loads.
func (e *Executor) Spawn(t *kc.Task) {
	if t == nil {
		panic("stealing: Spawn(nil)")
	}
	if e.quit == nil || e.sched.closed.Load() {
		panic("stealing: Spawn on a closed or zero Executor")
	}
	pid := procPin()
	if pid < len(e.rings) {
		old := e.rings[pid].put(t)
		if old == nil {
			procUnpin()
			e.wake()
			return
		}
		t = old // the FIFO is full
	}
	procUnpin()
	e.spawnSlow(t)
}

// spawnSlow queues t on the injector, together with half of the caller's
// ring if that is full (so that the next 128 spawns find room).
//
//go:noinline
func (e *Executor) spawnSlow(t *kc.Task) {
	var batch [ringSize / 2]*kc.Task
	n := 0
	pid := procPin()
	if pid < len(e.rings) {
		r := &e.rings[pid]
		if r.pushBack(t) { // we moved to a P with room
			procUnpin()
			e.wake()
			return
		}
		n = r.grab(batch[:], true)
	}
	procUnpin()
	e.inj.push(batch[:n], t)
	e.wake()
}

// Park blocks the caller until the core wakes p. A task running on a loop
// coroutine that waits for something other than a channel suspends its
// coroutine: the driver hands the wait off to p (kc.Parker.Suspend) and goes
// on running tasks on another coroutine, and the wake makes the coroutine
// ready (see the package doc, Parking). Otherwise a worker that parks gives
// up its running slot and wakes another worker if work is queued, so the
// number of running workers stays at the target (compensation). When it is
// unparked it finishes its task without a slot, as one unit of debt, which
// the next worker to end a task pays by leaving (see work).
func (e *Executor) Park(p *kc.Parker) {
	if p == nil {
		panic("stealing: Park(nil)")
	}
	if e.parkCoro(p) {
		return // suspended and resumed: the driver kept the slot
	}
	// A partner that answers at once (a ping-pong, a request and its reply)
	// wakes us within a goroutine switch: the spin yields once for it before
	// we pay for a hand-off of the worker slot. The yield goes through the
	// P's local run queue (SpinLocal), which keeps a ping-pong on one P,
	// except for a wait on a buffered channel (Batch), whose yield goes
	// through the global one (SpinBatch, runtime.Gosched; see the package
	// doc, Blocking). Not on a goroutine locked to its thread: a yield
	// there hands the thread off, which costs more than the hand-off of
	// the slot (see kc.Parker.Spin).
	var woken bool
	switch {
	case goruntime.LockedOSThread():
	case p.Batch():
		if testHookBatchSpin != nil {
			testHookBatchSpin(p)
		}
		woken = p.SpinBatch()
	default:
		woken = p.SpinLocal()
	}
	if woken || !p.Worker() {
		p.Wait() // if woken: at most a short wait for the signal, no compensation needed
		return
	}
	e.sched.running.Add(-1)
	if e.anyWork() {
		e.wake()
	}
	p.Wait()
	// Back without a slot: record a debt on this P's shard (uncontended,
	// unlike running, when a cancellation wakes thousands of parked tasks
	// at once). The first worker to end a task pays it and leaves.
	pid := procPin()
	procUnpin()
	e.debt[pid%len(e.debt)].n.Add(1)
}

// AfterFunc calls f on a goroutine of its own after d, unless the Timer
// is stopped first, as time.AfterFunc does, but through the executor's
// sleep queue (internal/sleepq): the timer is an entry in the heap of the
// caller's P, and its Stop is one CAS. A task on a loop coroutine that
// arms a timer due within the spin budget has its due time noted for
// Park, which waits for it spinning (see timerwait.go). It panics on a
// zero or closed Executor.
func (e *Executor) AfterFunc(d time.Duration, f func()) kc.Timer {
	e.noteTimer(d)
	return e.sleepQ.AfterFunc(d, f)
}

// Close stops the workers, the monitor and the sleep queue's runtime timers
// (dropping timers still pending, which the core has none of by then), and
// waits for every goroutine the executor started to return, timer functions
// that are running included. The core calls it once every job is terminal, so
// the queues hold only stale entries by then. Idempotent.
func (e *Executor) Close() error {
	if e.quit == nil {
		return nil
	}
	e.once.Do(func() {
		e.sched.closed.Store(true)
		close(e.quit)
	})
	e.starts.Drain() // a start that missed closed: let it Add first
	e.sleepQ.Close() // its fires, scheduled or running, count in wg
	e.wg.Wait()
	// No driver is left to take an idle coroutine, and none is parked
	// (every job is terminal). Stopping one switches to it, which the
	// runtime forbids from a goroutine locked to its thread (Close's
	// caller may be), so a goroutine of its own stops them.
	done := make(chan struct{})
	go func() { e.pool.drain(); close(done) }()
	<-done
	return nil
}

// anyWork reports whether some ring or the injector holds a runnable task
// (stale LIFO entries do not count). It reads every ring: O(Ps).
func (e *Executor) anyWork() bool {
	if !e.inj.empty() || e.anyReady() || e.yieldQ.n.Load() != 0 {
		return true
	}
	for i := range e.rings {
		if !e.rings[i].empty() {
			return true
		}
	}
	if testHookNoWork != nil {
		testHookNoWork()
	}
	return false
}

// limit is the number of running workers to aim for.
func (e *Executor) limit() int32 { return e.base + e.sched.extra.Load() }
