package vcore

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/internal/sleepq"
	"github.com/kcbench/kcbench/internal/startgate"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Executor is the vcore backend: a fixed set of virtual cores, each owned
// by one goroutine at a time, which locks its OS thread while it runs a
// task (for its whole life when pinned; see the package doc).
// The zero Executor is not usable; call New. All methods are safe for
// concurrent use.
type Executor struct {
	// Read by nearly every owner and woken goroutine, written at most once
	// (New, or Close for closing and stop), so these lines stay shared in
	// every CPU's cache. No field written per task may join them.
	cfg   config
	cores []core // immutable slice; each core's fields as documented there
	reg   registry
	coro  bool // owners are contexts (ctx.go): goroutine identities work and nothing is pinned; immutable

	closing atomic.Bool    // Close has started: the last task to finish signals drained
	stop    atomic.Bool    // active reached 0 after closing: owners exit
	starts  startgate.Gate // orders runElsewhere's wg.Add before Close's wg.Wait
	drained chan struct{}  // capacity 1; see closing

	// active is spec 05's active_tasks: +1 in Spawn, -1 when Run returns.
	// Spawn's increment happens before the push, so a task that is queued
	// or running is always counted (Close relies on it). Every task's start
	// and end write it, from any goroutine, so it has a cache line of its
	// own: on the line of stop or closing each of those writes would take
	// the line from every owner that loads them.
	_      cpu.CacheLinePad
	active atomic.Int64
	_      cpu.CacheLinePad

	// nspinning counts owners in findWork's spin phase; for owners that
	// are neither pinned nor contexts, at most half the cores (startSpin,
	// a CAS loop, enforces it). A pusher whose
	// target core is busy wakes a sleeper only if it loads 0; a spinner
	// decrements it before its Sleeping CAS and re-checks every queue
	// after, so (sequential consistency) a task pushed while the pusher
	// saw a spinner is seen by that spinner's re-check. See core.go.
	// Written by every spinning owner and loaded by every pusher: a line
	// of its own, apart from active.
	nspinning atomic.Int32
	_         cpu.CacheLinePad

	// The fields from here on are written at most per owner started, per
	// retake or per helper, not per task.

	nextID atomic.Uint64 // worker ids, unique; 0 means "no owner" in core.word

	// retaken counts goroutines sysmon took a core from that are still in
	// the body they were running (with their thread locked). Only sysmon
	// increments it (after a successful retake CAS). It is decremented once
	// per retake, by the party that first finds the core's word no longer
	// naming the owner it took the core from: that owner itself (lost,
	// pass), or, for a context, whoever suspended it (step, when the wake
	// came first; pass) or the owner that switches from it (switchTo). So
	// sysmon's check-then-retake keeps it at most TempWorkers without a CAS
	// loop.
	retaken atomic.Int64

	// helpers counts helper goroutines alive (helper.go): incremented by
	// sysmon before it starts one, decremented by the helper as it ends.
	// helperRuns counts the tasks they started, their heartbeat for sysmon.
	// Counts only: no ordering rides on them.
	helpers    atomic.Int64
	helperRuns atomic.Uint64

	global globalQueue // spec 05 global run queue: ring + overflow (padded inside)
	pin    pinner      // immutable after New, but for its error counter

	mon    sysmon
	pool   gpool        // idle owner or driver goroutines (pool.go)
	ctxs   ctxPool      // idle contexts (ctx.go)
	sleepQ sleepq.Queue // the timers of AfterFunc (internal/sleepq; timer.go)

	wg        sync.WaitGroup // every goroutine this executor started
	closeOnce sync.Once
	stats     counters
	yields    yieldRows // Yields in a row, per P (yield.go); last, so that it moves no other field
}

// counters are diagnostics, updated with relaxed intent (Go has only
// sequentially consistent atomics; nothing reads them for correctness).
type counters struct {
	workersStarted, reused, handoffs, suspends, retakes, helpers, sleeps, wakes, steals, timerWaits atomic.Uint64
}

// Stats is a snapshot of the executor's diagnostic counters.
type Stats struct {
	WorkersStarted uint64 // owners started (first owners and replacements)
	Reused         uint64 // owners of those started on a pooled goroutine (pool.go)
	Handoffs       uint64 // Park calls that gave their core away
	Suspends       uint64 // of those, the ones that suspended their task's context instead of blocking its goroutine (ctx.go)
	Retakes        uint64 // cores sysmon took from a stuck owner (temporary workers)
	Helpers        uint64 // helpers sysmon started beyond the TempWorkers bound (helper.go)
	Sleeps, Wakes  uint64 // owners that went to sleep; sleepers woken by others
	Steals         uint64 // tasks taken from another core's inbox or next slot
	TimerWaits     uint64 // Parks woken by a short timer while they spun, keeping the core (timer.go)
	PinErrors      uint64 // affinity syscalls that failed after New
	Active         int64  // spec 05 active_tasks now; a context takes the tasks it ended off it in batches (ctx.ended), by the time it runs out of work
}

// Stats returns the current counters. It costs a few atomic loads.
func (e *Executor) Stats() Stats {
	return Stats{
		WorkersStarted: e.stats.workersStarted.Load(),
		Reused:         e.stats.reused.Load(),
		Handoffs:       e.stats.handoffs.Load(),
		Suspends:       e.stats.suspends.Load(),
		Retakes:        e.stats.retakes.Load(),
		Helpers:        e.stats.helpers.Load(),
		Sleeps:         e.stats.sleeps.Load(),
		Wakes:          e.stats.wakes.Load(),
		Steals:         e.stats.steals.Load(),
		TimerWaits:     e.stats.timerWaits.Load(),
		PinErrors:      e.pin.errs.Load(),
		Active:         e.active.Load(),
	}
}

// New returns an executor with the given options. It starts only the sysmon
// goroutine (asleep until the first Spawn); a core's first owner starts
// when work first lands on it. Errors: *OptionError (matching ErrOption)
// for a bad option, *PinError when pinning is on and refused. With no
// options New cannot fail.
func New(opts ...Option) (*Executor, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	e := &Executor{cfg: cfg, drained: make(chan struct{}, 1), coro: goruntime.GOK && !cfg.pin}
	if cfg.pin {
		if err := e.pin.setup(); err != nil {
			return nil, err
		}
	}
	e.cores = make([]core, cfg.workers)
	for i := range e.cores {
		e.cores[i].init(i, e.pin.cpuFor(i), cfg.inboxSize)
	}
	e.global.init(cfg.globalSize)
	e.reg.init(cfg.workers + cfg.maxTemp + 1)
	e.mon.init()
	e.yields.init(runtime.GOMAXPROCS(0))
	e.sleepQ.Init(runtime.GOMAXPROCS(0), &e.wg, "vcore")
	e.wg.Add(1)
	go e.sysmon()
	return e, nil
}

// Name returns "vcore".
func (*Executor) Name() string { return "vcore" }

// Spawn puts t in its caller's core's next slot when the caller is an owner
// running a task (a child launched by its parent) and that slot holds no task
// still to run (putNext); any other task goes to an inbox. That inbox is the
// one of the core chosen by a multiplicative hash of the task's address (round
// robin in effect, with no shared counter), or the global queue when that
// inbox is full of live tasks. Spawn makes sure someone will run the task and
// never blocks. Cost: a registry lookup (with goroutine keys only: a thread
// key would be a system call), and for a child a load and a CAS on its own
// core, plus an atomic add unless t replaces a finished task (whose count t
// takes over); for a task queued, an atomic add, a ring push, a load of the
// core's word, and a wake-up (a channel send, or a goroutine start for a core
// nobody owns) only when no owner is awake to find the task.
func (e *Executor) Spawn(t *kc.Task) {
	counted := false
	if regByG {
		if w := e.reg.self(); w != nil && w.core != nil {
			switch e.putNext(w, t) {
			case nextPut:
				return
			case nextCounted:
				counted = true
			}
		}
	}
	if !counted {
		e.begin()
	}
	h := uint64(uintptr(unsafe.Pointer(t))>>4) * 0x9E3779B97F4A7C15
	c := &e.cores[(h>>32)%uint64(len(e.cores))]
	pushed := c.inbox.push(t)
	if !pushed {
		e.dropStale(c) // room for t, mostly: a full inbox holds stale entries
		pushed = c.inbox.push(t)
	}
	if pushed {
		e.kick(c)
		return
	}
	e.global.push(t)
	e.wakeOne()
}

// begin counts a new task in active_tasks (spec 05's increment), before
// the task becomes visible in a queue, so that a task that is queued or
// running is always counted (Close relies on it).
func (e *Executor) begin() {
	if e.active.Add(1) == 1 {
		e.mon.kick() // sysmon sleeps while nothing is active
	}
}

// nextResult is what putNext did with a task.
type nextResult uint8

const (
	nextNone    nextResult = iota // left the slot alone and counted nothing: the caller queues t
	nextCounted                   // counted t (begin) but lost the slot: the caller queues t uncounted
	nextPut                       // t is in the slot and counted: the caller is done
)

// putNext stores t in the next slot of w's core if the slot is empty or
// holds a Finished task (its parent ran it inline: the common case of an
// awaited child). Into an empty slot t goes counted (begin, before the CAS
// that publishes it). A Finished task it replaces hands its count in
// active_tasks over to t: that task ends as t is queued, so the count
// never falls below the tasks queued or running, and neither its end
// (taskDone) nor t's begin is paid. If the slot holds a task still to run,
// putNext leaves it there for the caller to queue t: a parent launching
// many children spreads them over the inboxes as before. w is the caller's
// own worker (registry.self returns nothing else), so w.core is the
// caller's to read. Nobody is woken: the core's owner is the caller, which
// takes the slot when it next looks for work, hands it on with the core in
// Park (giveAway), or, stuck in its body, leaves it to sysmon
// (moveStaleNext). If the word does not name w Running, sysmon retook the
// core and its new owner may be asleep: Dekker with its sleep (store the
// slot, then load the word; it stores Sleeping, then idle loads the slot),
// so kick.
func (e *Executor) putNext(w *worker, t *kc.Task) nextResult {
	c := w.core
	switch old := c.next.Load(); {
	case old == nil:
		e.begin()
		if !c.next.CompareAndSwap(nil, t) {
			return nextCounted
		}
	case old.Finished():
		// Only takers (CAS old -> nil, each then ending old) move the
		// slot away from old, so winning this CAS makes old's end ours.
		if !c.next.CompareAndSwap(old, t) {
			return nextNone
		}
	default:
		return nextNone
	}
	if c.word.Load() != mkword(w.id.Load(), coreRunning) {
		e.kick(c)
	}
	return nextPut
}

// staleScan bounds how many entries one dropStale looks at.
const staleScan = 32

// dropStale makes room in c's full inbox by taking entries off its head
// while their tasks are Finished: stale entries of children their parents
// ran inline (Await of a pending child), which pile up in the inbox of a
// core whose owner is busy running that very parent. A dropped entry is
// its task's end for active_tasks (taskDone), as a Run of it would be. The
// first live task it meets goes to the global queue, still queued and
// counted. So it always leaves room, unless others filled the inbox again,
// or finds some: an inbox found empty was drained by other owners since the
// caller's push failed, and the caller tries it again either way rather than
// the global queue.
func (e *Executor) dropStale(c *core) {
	for range staleScan {
		t := c.inbox.pop()
		if t == nil {
			return
		}
		if !e.endStale(t) {
			e.global.push(t)
			return
		}
	}
}

// Park blocks the caller until the core wakes p. If the caller owns a
// core (it is a worker running a task), it first gives its thread back
// (loosen, idle.go) and lets a wait the core expects to be answered at
// once (p.Spin: a channel partner) be woken within a few yields, keeping
// its core, and waits so for the wake of a short timer it armed
// (awaitTimer, timer.go) while no work waits for the core; a pinned owner,
// which stays locked, skips both. Otherwise the core is handed off, to a
// woken context or a fresh owner if work is waiting, else left Free. A
// context (ctx.go) is then suspended (parkCtx) and resumes owning the core
// an owner grants it; else, after the wake, the goroutine tries to take its
// old core back (soft affinity), then any Free core, and otherwise finishes
// its body on a plain goroutine (see the package doc). Cost for a worker
// woken while it spins: a registry lookup (registry.self), UnlockOSThread
// and LockOSThread and the yields; for a hand-off, two atomic CASes more
// and, for a context, two to four coroutine switches (see ctx.go) and a
// ready queue's push and pop; for a goroutine, a wake-up of a pooled
// goroutine when work waits.
func (e *Executor) Park(p *kc.Parker) {
	if !p.Worker() {
		p.Wait()
		return
	}
	w := e.reg.self()
	if w == nil { // a goroutine of the body's own, or one already coreless
		p.Wait()
		return
	}
	e.loosen(w)
	if !w.locked && (p.Spin() || e.awaitTimer(w, p) == sleepq.ShortWoken) {
		// Woken while spinning (for a channel partner, or for a short
		// timer: timer.go): still the core's owner (unless sysmon took
		// the core meanwhile, which workerMain finds out once the body
		// returns, as for any stuck body).
		p.Wait()
		e.tighten(w)
		return
	}
	if w.isCtx && !p.Quick() && !goruntime.LockedOSThread() {
		e.parkCtx(ctxOf(w), p)
		return
	}
	prev := w.core
	e.release(w)
	p.Wait()
	e.reacquire(w, prev)
}

// Close waits until every spawned task has returned from Run, then stops
// every owner, sysmon and the sleep queue's runtime timers (dropping timers
// still pending, which the core has none of by then: it calls Close once
// every job is terminal) and waits for every goroutine it started, timer
// functions that are running included; owner threads are unpinned and
// unlocked on the way out. Idempotent.
func (e *Executor) Close() error {
	e.closeOnce.Do(func() {
		e.closing.Store(true)
		// Dekker with taskDone: it decrements active, then loads closing.
		for e.active.Load() != 0 {
			<-e.drained
		}
		e.stop.Store(true)
		for i := range e.cores {
			e.closeCore(&e.cores[i])
		}
		e.pool.close() // owners that end from now on end their goroutines
		// and their contexts. Stopping one switches to it, which the
		// runtime forbids from a goroutine locked to its thread (Close's
		// caller may be): a goroutine of its own stops them.
		e.wg.Add(1)
		go func() { defer e.wg.Done(); e.ctxs.close() }()
		e.mon.quit()
		e.sleepQ.Close() // its fires, scheduled or running, count in wg
		e.starts.Drain() // a start that missed stop: let it Add first
		e.wg.Wait()
	})
	return nil
}

// closeCore makes sure the core's owner (if any) notices stop: a Free core
// is closed here; a sleeping owner is woken; a running owner sees stop
// before it sleeps (its Sleeping store and stop load pair with ours).
func (e *Executor) closeCore(c *core) {
	for {
		w := c.word.Load()
		switch stateOf(w) {
		case coreFree:
			if c.word.CompareAndSwap(w, mkword(0, coreClosed)) {
				return
			}
		case coreSleeping:
			if e.wakeSleeper(c, w) {
				return
			}
		default:
			return
		}
	}
}

// taskDone is the end of one task: spec 05's active_tasks decrement.
func (e *Executor) taskDone() { e.tasksDone(1) }

// tasksDone is the end of n tasks.
func (e *Executor) tasksDone(n int64) {
	if e.active.Add(-n) == 0 && e.closing.Load() {
		select {
		case e.drained <- struct{}{}:
		default:
		}
	}
}

// endStale ends t for active_tasks if it is Finished, and reports whether
// it was: a stale queue entry, a child its parent ran inline, whose entry
// ends here instead of in a Run.
func (e *Executor) endStale(t *kc.Task) bool {
	if !t.Finished() {
		return false
	}
	e.taskDone()
	return true
}
