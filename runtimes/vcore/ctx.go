package vcore

import (
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Parked tasks are held as coroutines.
//
// Where goroutine identities work (goruntime.GOK) and owners are not
// pinned, an owner is not a goroutine but a task context (ctx): an iter.Pull
// coroutine that runs owner stints (workerMain) on its own stack, resumed
// by a driver goroutine. A task that parks in a kc wait yields to the
// driver, which suspends the context, stack and all (kc.Parker.Suspend),
// and then goes on at once with another context for the core: a ready one
// that the core's ready queue holds (granted the core), else an idle one
// (a fresh owner) when work waits, else none (the core goes Free and the
// driver to the pool of idle goroutines). A wake that comes before the
// suspend leaves the context its core: it goes on at once. The wake (Resume) puts the context on the ready queue
// of the core it parked on (spec 05's soft affinity) and kicks that core;
// the owner that takes it hands it its core, and the context it ran on
// goes to the pool. So a parked task costs a suspended coroutine, not a
// blocked goroutine, and its resume is a push and a pop and two coroutine
// switches on an owner's thread, not a pass through Go's scheduler; the
// owner prefetches the next context of the queue as it resumes one (as the
// stealing backend does, and for the same reason: the memory of a task
// parked long ago is cold).
//
// A coroutine made on a locked thread can only ever be resumed on that
// thread (the runtime throws otherwise), and a switch away from a locked
// goroutine throws as well. So contexts are made only on unlocked
// goroutines (drivers), drivers never lock, and a context locks its thread while it runs a task
// (workerMain, as every owner) and unlocks before every switch. A body that
// holds a thread lock of its own when it parks cannot be suspended: it
// parks as a goroutine (release, Wait, reacquire), its driver blocked with
// it, as a Quick wait (a channel partner) does after its spin.

// ctxState is where a task context is in its life. Its owner writes it:
// the driver that runs it or the context itself while it runs; then, parked,
// its Parker's waker (Resume); ready, whoever pops it from a ready queue
// (under that queue's lock) and the driver it is handed to; idle, the pool
// (under its lock). Ownership passes with the hand-off that moves the
// context (a coroutine switch, the Parker's hand-off word, a queue's or the
// pool's mutex), so the field needs no atomics. It is checked at each
// hand-off, so a context resumed twice or run while parked panics instead
// of running twice.
type ctxState uint8

const (
	// ctxRunning: a driver runs it. Moves to ctxParking (Park yields) or
	// ctxIdle (its owner stint ended and the driver pools it), or ctxDead
	// (a body's Goexit ends its goroutine).
	ctxRunning ctxState = iota
	// ctxParking: it yielded from Park; its driver is about to suspend
	// it on the Parker. Moves to ctxParked (the driver's next state,
	// stored before Suspend installs it).
	ctxParking
	// ctxParked: installed as its Parker's Resumer, waiting for the wake;
	// nobody holds it but the Parker. Moves to ctxReady (Resume; or its
	// driver, when Suspend failed because the wake came first).
	ctxParked
	// ctxReady: woken, on a core's ready queue or on its way to a driver
	// with a core granted. Moves to ctxRunning.
	ctxReady
	// ctxIdle: in a driver's stash or the pool, stopped at its loop's
	// yield between owner stints. Moves to ctxRunning (a driver takes it)
	// or ctxDead (sysmon trims it, or the pool is closed, and its
	// coroutine is stopped).
	ctxIdle
	// ctxDead: its coroutine has returned and its goroutine is gone. Final.
	ctxDead
)

var ctxStateNames = [...]string{"running", "parking", "parked", "ready", "idle", "dead"}

func (s ctxState) String() string {
	if int(s) < len(ctxStateNames) {
		return ctxStateNames[s]
	}
	return fmt.Sprintf("ctxState(%d)", s)
}

// ctxMsg is what a context tells its driver when it yields.
type ctxMsg uint8

const (
	msgPark ctxMsg = iota // a task body parked on park: suspend the context, then pass its core on (home)
	msgDone               // the owner stint ended: stash the context, then run to (nil: none)
)

// ctx is a task context: an owner that is a coroutine (see above). w comes
// first, so that the registered worker of a context leads back to it
// (ctxOf). Its fields belong to its current owner (see ctxState), but sp
// and g, which a driver that pops the context from a ready queue reads for
// a prefetch (see prefetch). The size is a whole number of cache lines
// (TestCtxLines), so that contexts run by different cores' owners share
// no line.
type ctx struct {
	w     worker
	e     *Executor
	next  func() (ctxMsg, bool) // iter.Pull's next: called by the driver that runs it
	stop  func()                // iter.Pull's stop: called once it is idle, by whoever drops it
	yield func(ctxMsg) bool     // the seq's yield: called by the context itself
	g     uintptr               // its goroutine (goruntime.G), for prefetch
	park  *kc.Parker            // the wait it yielded from (msgPark)
	to    *ctx                  // the context its driver runs next (msgDone: the ready one it handed its core to)
	grant *core                 // the core it owns when it next runs (its owner stint starts, or Park returns, owning it); nil: it has none
	home  *core                 // the core it parked on: the one its driver passes on, and the ready queue Resume puts it on
	link  *ctx                  // the next in whichever list holds it: a ready queue or the pool
	// sp is an address in the frame of its last suspend (parkCtx), near
	// where its resume returns first: a hint for prefetch, and nothing
	// else (a stale value, the collector having moved the stack, only
	// wastes the prefetch). Written by the context, read by a driver
	// that pops it; atomic only so that the race detector sees both sides.
	sp    atomic.Uintptr
	state ctxState
	// ended counts the tasks this context ran to their end since it last
	// took them off active_tasks (flushEnded): a context batches that
	// decrement, which every task's end would otherwise make on a line all
	// cores write, until it stops running tasks (its owner stint ends, it
	// runs out of work, it exits). The tasks still count as active
	// meanwhile, which only delays Close's drain and sysmon's rest until
	// then; a context that never runs out of work flushes every
	// maxEnded tasks, so the count cannot wrap. Only the context touches
	// it.
	ended int32
	_     [ctxPad]byte
}

// endOne counts the end of a task t ran (runTask).
func (t *ctx) endOne() {
	if t.ended++; t.ended >= maxEnded {
		t.e.flushEnded(t)
	}
}

// maxEnded bounds ctx.ended, far below where an int32 wraps (a wrapped
// count would add 2^31 tasks to active_tasks, and Close would wait for
// ever).
const maxEnded = 1 << 20

// flushEnded takes the tasks t ran to their end off active_tasks (see
// ctx.ended), as taskDone does for one.
func (e *Executor) flushEnded(t *ctx) {
	if n := t.ended; n != 0 {
		t.ended = 0
		e.tasksDone(int64(n))
	}
}

// ctxPad rounds ctx up to a whole number of cache lines on 64-bit
// platforms (TestCtxLines checks it where contexts run): the worker, eleven
// words, state, three bytes of alignment, ended.
const ctxPad = 192 - 64 - 11*8 - 1 - 3 - 4

// ctxOf returns the context whose worker w is; w.isCtx must hold.
func ctxOf(w *worker) *ctx { return (*ctx)(unsafe.Pointer(w)) }

// newCtx makes a context, not yet started: its first resume runs its loop
// from the top. The caller must not be locked to its thread (see above).
func (e *Executor) newCtx() *ctx {
	t := &ctx{e: e, state: ctxIdle}
	t.w.isCtx = true
	t.next, t.stop = iter.Pull(t.body)
	e.wg.Add(1) // its goroutine; done when body returns
	return t
}

// body is the context's coroutine: for each owner stint it is given (its
// worker already started under the owner's id, grant the core), it runs
// workerMain, then yields msgDone. It ends when stop makes yield report
// false (it is idle then), or when a task body calls runtime.Goexit
// (workerMain's deferred exit passes the core on; iter.Pull then ends the
// driver with Goexit too).
func (t *ctx) body(yield func(ctxMsg) bool) {
	e := t.e
	t.yield = yield
	t.g = goruntime.G()
	defer func() {
		t.state = ctxDead
		// A body that called Goexit with its thread locked: the coroutine's
		// exit is a switch to its driver, which throws unless the lock is
		// undone (see goruntime.UnlockOSThreadAll).
		goruntime.UnlockOSThreadAll()
		e.wg.Done()
	}()
	for {
		c := t.grant
		t.grant = nil
		e.workerMain(&t.w, c)
		goruntime.UnlockOSThreadAll() // a body's own thread lock would make the switch throw
		if !yield(msgDone) {
			return
		}
	}
}

// prefetchCtxLines is how many lines of the context record prefetch asks
// for.
const prefetchCtxLines = 3

// prefetch starts loading what the resume of t will touch first; an owner
// calls it for the context it will resume after the one it is about to
// run. It only issues prefetches (goruntime.PrefetchLines), which read
// nothing and cannot fault, so a stale sp or g does no harm.
func (t *ctx) prefetch() {
	goruntime.PrefetchLines(uintptr(unsafe.Pointer(t)), prefetchCtxLines)
	goruntime.PrefetchResume(t.g, t.sp.Load())
}

// Resume is the kc.Resumer of a parked context: the wake of its Parker
// calls it, on the waker's goroutine. It puts t on the ready queue of the
// core it parked on and makes sure an owner will look (kick).
func (t *ctx) Resume() {
	if t.state != ctxParked {
		panic("vcore: Resume of a context that is " + t.state.String())
	}
	t.state = ctxReady
	c := t.home
	c.ready.push(t)
	t.e.kick(c)
}

// parkCtx is Park's path for an owner that is a context: it yields to its
// driver, still owning its core, and the driver suspends it and passes the
// core on (drive); it returns, once resumed, owning the core it was
// granted (its own again, if the wake came before the suspend), or else
// after reacquire. The caller has loosened w's thread, and nothing else
// holds it locked.
func (e *Executor) parkCtx(t *ctx, p *kc.Parker) {
	w := &t.w
	c := w.core
	e.stats.handoffs.Add(1)
	e.unlock(w)
	w.role = roleParked
	t.home = c
	t.park = p
	var top byte // its address: where the resume returns, for prefetch
	goruntime.StoreRelUintptr(&t.sp, uintptr(unsafe.Pointer(&top)))
	t.state = ctxParking
	if !t.yield(msgPark) {
		panic("vcore: a parked context was stopped")
	}
	if g := t.grant; g != nil {
		t.grant = nil
		e.lock(w, g)
		return
	}
	// A fresh id, as in switchTo: the driver that suspended t compares c's
	// word with t's old id when it passes c on, which may still be to come.
	w.id.Store(e.newID())
	e.reacquire(w, c)
}

// stashMax bounds a driver's own idle contexts.
const stashMax = 16

// stash is a driver's own idle contexts: a context whose owner stint ends
// goes here, and the fresh owner of a parked context's core comes from
// here, with no lock; the shared pool (ctxPool) takes the overflow and
// whatever a driver holds when it stops driving (flush). Only the driver
// goroutine touches it.
type stash struct {
	t [stashMax]*ctx
	n int
}

// take returns an idle context of the stash, or one from the pool, or a
// new one. The caller is unlocked (see newCtx).
func (e *Executor) take(d *stash) *ctx {
	if d.n > 0 {
		d.n--
		t := d.t[d.n]
		d.t[d.n] = nil
		return t
	}
	if t := e.ctxs.get(); t != nil {
		return t
	}
	return e.newCtx()
}

// idleCtx stashes t, whose owner stint has ended, or pools it.
func (e *Executor) idleCtx(d *stash, t *ctx) {
	if d.n < stashMax {
		t.state = ctxIdle
		d.t[d.n] = t
		d.n++
		return
	}
	e.ctxs.put(t)
}

// flush hands every stashed context to the pool.
func (e *Executor) flush(d *stash) {
	for d.n > 0 {
		d.n--
		e.ctxs.put(d.t[d.n])
		d.t[d.n] = nil
	}
}

// drive runs context t, and the context each one it runs hands on to,
// until one hands on none, with d as the driver's stash. A body's Goexit
// ends the driver here (iter.Pull passes it on).
func (e *Executor) drive(d *stash, t *ctx) {
	for t != nil {
		if t.state != ctxReady && t.state != ctxIdle {
			panic("vcore: resume of a context that is " + t.state.String())
		}
		t.state = ctxRunning
		msg, ok := t.next()
		if !ok {
			panic("vcore: a context ended while running")
		}
		next := t.to
		t.to = nil
		switch msg {
		case msgPark:
			p, c := t.park, t.home
			me := mkword(t.w.id.Load(), coreRunning) // before Suspend: after it, t may run elsewhere at once
			t.park = nil
			t.state = ctxParked
			if p.Suspend(t) {
				e.stats.suspends.Add(1)
				// c's word still says me, unless sysmon took c: t, once
				// resumed, takes a core under a fresh id (switchTo,
				// parkCtx), so no word comes to say me again.
				next = e.handOn(me, c, d)
			} else if c.word.Load() == me {
				// The wake came first: t goes on here with its core.
				t.state, t.grant = ctxReady, c
				next = t
			} else {
				// And sysmon took the core meanwhile: t goes on without
				// it (reacquire), and leaves the retake bound.
				e.retaken.Add(-1)
				t.state = ctxReady
				next = t
			}
		case msgDone:
			e.idleCtx(d, t)
		}
		t = next
	}
}

// driver is a driver goroutine's life: it drives what it is started with,
// then waits in the pool of idle goroutines for the next start.
func (e *Executor) driver(s ownerStart) {
	defer e.wg.Done()
	x := newIdle()
	d := new(stash)
	defer e.flush(d) // deferred, so that a body's Goexit, which ends the driver too, pools them as well
	for {
		t := s.t
		if t == nil { // a fresh owner: an idle context, or a new one
			t = e.take(d)
			t.w.start(s.id)
			t.grant = s.c
		}
		e.drive(d, t)
		e.flush(d) // an idle driver holds no context
		if !e.pool.put(x) {
			return
		}
		var ok bool
		if s, ok = x.wait(); !ok {
			return
		}
	}
}

// runElsewhere starts s on an idle pooled goroutine if there is one, else
// on a new one: a driver (coroutine mode) or an owner goroutine.
//
// Its caller need not be counted in wg (a Spawn or a wake from the caller
// of Run, or from a goroutine a body started), so Close may be under way:
// the start goes through e.starts (see package startgate). One that finds
// stop set closes s's core and starts nothing: nothing is queued once
// stop is set, so no owner is needed.
func (e *Executor) runElsewhere(s ownerStart) {
	if x := e.pool.get(); x != nil {
		e.stats.reused.Add(1)
		x.hand(s) // never blocks
		return
	}
	if !e.starts.Begin(&e.stop) {
		if s.t == nil { // a ready context is an active task, so stop is not set yet
			s.c.word.CompareAndSwap(mkword(s.id, coreRunning), mkword(0, coreClosed))
		}
		return
	}
	if testHookStart != nil {
		testHookStart()
	}
	e.wg.Add(1)
	e.starts.End()
	if e.coro {
		go e.driver(s)
	} else {
		go e.ownerLoop(s)
	}
}

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

// put pools t, whose owner stint has ended, or stops it if the pool is
// closed.
func (p *ctxPool) put(t *ctx) {
	t.state = ctxIdle
	p.mu.Lock()
	if !p.closed {
		t.link = p.idle
		p.idle = t
		p.n++
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	t.stop()
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
