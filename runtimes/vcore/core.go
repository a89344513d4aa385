package vcore

import (
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
	"golang.org/x/sys/cpu"
)

// coreState is the low bits of core.word; the bits above hold the id of the
// owning worker (0 when there is none). Every change of the word is a CAS
// (or, for the owner's own Running -> Sleeping, a CAS as well), so owner and
// state always change together.
type coreState uint64

const (
	// coreFree: no goroutine owns the core. Whoever wins the CAS
	// Free -> Running(id) owns it: a pusher that finds work for it (it
	// then starts a worker, kick), a parked task's goroutine coming back
	// (reacquire), a goroutine whose core was taken (adopt). Close moves
	// Free -> Closed.
	coreFree coreState = iota

	// coreRunning: owned by worker id, which is running a task or looking
	// for one (and may be spinning). Legal moves: the owner goes to sleep
	// (-> Sleeping), hands the core off in Park (-> Running(new id) when
	// work waits, else -> Free) or to a woken context it found ready
	// (switchTo: -> Running(new id)), closes it at shutdown (-> Closed);
	// sysmon retakes it from a stuck owner (-> Running(new id)).
	coreRunning

	// coreSleeping: the owner is blocked on its worker.wake. Whoever wins
	// the CAS Sleeping -> Running(same id) must send that worker the wake
	// token (Executor.wakeSleeper), unless it is the owner itself cancelling its
	// sleep. Only the owner enters it.
	coreSleeping

	// coreClosed: terminal, set at shutdown; nothing may claim the core.
	coreClosed
)

const stateBits = 2

func mkword(id uint64, s coreState) uint64 { return id<<stateBits | uint64(s) }
func stateOf(w uint64) coreState           { return coreState(w & (1<<stateBits - 1)) }
func ownerOf(w uint64) uint64              { return w >> stateBits }

// core is a virtual core (spec 05's worker slot, Go's P): an inbox of
// runnable tasks and at most one owning goroutine at a time. The number of
// cores is fixed at New; goroutines come and go around them. The zero core
// is Free but has no inbox or wake channel; call init.
type core struct {
	_ cpu.CacheLinePad

	// word is owner id and coreState; see coreState for who may move it.
	// All accesses are atomic: a CAS that succeeds publishes the new owner
	// to everyone who loads the word afterwards (acq_rel), and the
	// Sleeping store / queue re-check pair relies on sequential consistency
	// (spec 05's Dekker rule; see Executor.sleep).
	word atomic.Uint64

	// sleeper is the worker that last went to sleep on the core. Stored
	// only by a worker whose CAS Running(id) -> Sleeping(id) succeeded,
	// after that CAS and before its re-check of the queues; loaded by
	// wakers between their load of word and their CAS Sleeping -> Running
	// (wakeSleeper says why that order).
	sleeper atomic.Pointer[worker]

	// next is the newest child of the core's owner (Go's runnext): a
	// parent mostly awaits its child at once and runs it inline, so the
	// child needs no inbox and no other core's attention. CASed in by
	// the owner's Spawn (putNext; by a goroutine the core was retaken
	// from too, which then kicks); taken with Swap(nil) by the core's
	// owner (poll) and with CompareAndSwap by an idle owner about to sleep
	// (stealNext), sysmon (moveStaleNext) and helpers, so each task is
	// taken once. It counts as queued work wherever the inbox does.
	next atomic.Pointer[kc.Task]

	_ cpu.CacheLinePad
	// beat counts tasks started on the core (spec 05's heartbeat). Written
	// (Add) by the owner; read by sysmon, which retakes a core whose beat
	// has not moved while work waits. It is diagnostic-grade: a lost or
	// doubled count only delays or hastens a bounded rescue. It has a line
	// of its own (TestCoreBeatLine): the owner adds to it at every task it
	// starts, and word and next, which other cores load at every task they
	// queue for this one (kick, holdsWork), would otherwise move between
	// the cores with it, twice per task.
	beat atomic.Uint64

	inbox ring       // runnable tasks for this core; any core may steal from it
	ready readyQueue // woken contexts that parked on this core (ctx.go); any core may take them
	id    int        // index in Executor.cores; immutable
	cpu   int        // CPU to pin the owner to, or -1; immutable

	// Sysmon's private view; touched only by the sysmon goroutine.
	seenBeat uint64
	seenAt   time.Time
	seenNext *kc.Task // next as of the previous tick (moveStaleNext)
}

func (c *core) init(id, cpuID, inboxSize int) {
	c.id, c.cpu = id, cpuID
	c.inbox.init(inboxSize)
}

// wakeSleeper makes sure the owner that slept on c when its word was w
// (Sleeping) wakes up or sees for itself what the caller stored before it
// loaded w (a task, stop). If c.sleeper names that owner, it moves the word
// back to Running and sends the owner its wake token; it reports false,
// having done nothing, if that CAS fails (the word is no longer w): the
// caller reloads and decides again. Otherwise it reports true at once.
//
// The token goes to the worker, not to the core: a core can change owners
// between a wake CAS and the woken owner's receive (sysmon retakes a core
// whose woken owner has not run yet), and a per-core token could then be
// taken by the new owner's next sleep, leaving the old owner blocked for
// ever and Close waiting for it.
//
// Why the sleeper is right. A worker stores itself in c.sleeper only after
// its CAS to Sleeping(id) succeeded, and the word leaves Sleeping(id) only
// through a wakeSleeper that saw that store or through the owner's own
// cancel after it: so while the word says Sleeping(id), no other worker
// stores sleeper, and once sleeper names id it stays so until the word
// moves on. (Storing it before the CAS would let a worker that has just
// lost the core to a retake, and whose CAS then fails, overwrite the
// sleeping new owner's entry: that owner could then never be woken.)
//
// Why giving up on a sleeper with another id is safe. In Go's sequentially
// consistent order the caller stored (pushed the task, set stop), then
// loaded the word w, then loaded sleeper. If sleeper does not name
// ownerOf(w), that owner had not yet published itself when the caller
// looked (or its sleep has ended since, and it is awake): it publishes
// after, and only then re-checks the queues and stop (sleep, idle), so its
// re-check sees what the caller stored and it cancels the sleep itself. A
// later sleeper on c began its sleep after the caller loaded w, so its
// re-check sees it too.
//
// And loading sleeper after the CAS instead would lose a wake-up: between
// the CAS and the load, the woken owner's core can be retaken and its new
// owner can store itself as sleeper, and the token would go to the wrong
// worker, leaving the right one asleep for ever.
func (e *Executor) wakeSleeper(c *core, w uint64) bool {
	s := c.sleeper.Load()
	if s == nil || s.id.Load() != ownerOf(w) {
		return true // it will see the caller's stores itself; see above
	}
	if !c.word.CompareAndSwap(w, mkword(ownerOf(w), coreRunning)) {
		return false
	}
	e.stats.wakes.Add(1)
	select {
	case s.wake <- struct{}{}:
	default: // a token already there is enough: the owner re-checks after waking
	}
	return true
}

// Sleeping and waking owners without losing a wake-up.
//
// The handshake is spec 05's Dekker pattern over two locations, each side
// storing to one and then loading the other, with Go's sequentially
// consistent atomics:
//
//	pusher:  push task (ring seq store)   ->  load core.word (kick) / nspinning (wakeOne)
//	sleeper: CAS word Running -> Sleeping  ->  load every queue and stop (idle)
//
// Either the sleeper's re-check sees the task (and it cancels its sleep), or
// the pusher sees Sleeping (and wakes it by CAS Sleeping -> Running plus a
// token). For a task pushed to a busy core, the pusher wakes a sleeping core
// to steal it unless some owner is spinning; a spinner re-checks the queues
// before it sleeps, after its nspinning decrement, so it cannot miss a task
// whose pusher saw nspinning > 0, and the last spinner to stop because it
// found a task wakes an owner if more work waits (spunToWork), since the
// pushers of that work may have counted on it too.

// kick makes sure c's task will be found: it wakes c's sleeping owner,
// starts an owner for a Free core, or, if c's owner is awake but maybe busy
// in a long task, wakes another core to steal.
func (e *Executor) kick(c *core) {
	for {
		w := c.word.Load()
		switch stateOf(w) {
		case coreRunning:
			if e.nspinning.Load() == 0 {
				e.wakeOne()
			}
			return
		case coreSleeping, coreFree:
			if e.rouse(c, w) {
				return
			}
		default: // coreClosed: Spawn after Close, a bug in the core; drop the wake
			return
		}
	}
}

// rouse moves c, whose word was w (Sleeping or Free), to Running: it wakes
// the sleeping owner or starts a new one. It reports false if the CAS lost
// (the word changed since w was loaded); the caller reloads and decides again.
func (e *Executor) rouse(c *core, w uint64) bool {
	if stateOf(w) == coreSleeping {
		return e.wakeSleeper(c, w)
	}
	id := e.newID()
	if !c.word.CompareAndSwap(w, mkword(id, coreRunning)) {
		return false
	}
	e.startWorker(id, c)
	return true
}

// wakeOne wakes one sleeping owner, or starts an owner for one Free core,
// so that work on the global queue or a busy core's inbox gets looked at.
// It does nothing if every core's owner is awake.
func (e *Executor) wakeOne() {
	for i := range e.cores {
		c := &e.cores[i]
		if w := c.word.Load(); (stateOf(w) == coreSleeping || stateOf(w) == coreFree) && e.rouse(c, w) {
			return
		}
	}
}

// idle reports whether every queue and c's next slot looked empty and the
// executor is not stopping. Advisory, but used only after a Sleeping store
// (see above). Other cores' next slots are their owners' (and, past a
// sleep, stealNext's and sysmon's) business: counting them would keep c's
// owner from sleeping while a busy parent's awaited child sits there.
func (e *Executor) idle(c *core) bool {
	return !e.stop.Load() && c.next.Load() == nil && e.inboxesEmpty()
}

// inboxesEmpty reports whether the global queue, every inbox and every
// ready queue looked empty (next slots aside). Advisory, like ring.empty.
func (e *Executor) inboxesEmpty() bool {
	if !e.global.empty() {
		return false
	}
	for i := range e.cores {
		if !e.cores[i].inbox.empty() || !e.cores[i].ready.empty() {
			return false
		}
	}
	return true
}

// sleep blocks c's owner until someone wakes it. It returns false, at once,
// if c is no longer w's (sysmon retook it, possibly just after the wake),
// and true otherwise, with c Running(w.id) again. Cost when it really
// sleeps: a channel receive, on a loosened goroutine (idle.go) a goroutine
// wake-up of a few hundred ns; a pinned owner sleeps locked, and its
// wake-up is an OS wake-up of that very thread (a futex wake on Linux,
// tens of µs), which is why findWork spins first.
func (e *Executor) sleep(w *worker, c *core) bool {
	id := w.id.Load()
	running, sleeping := mkword(id, coreRunning), mkword(id, coreSleeping)
	if w.wake == nil {
		// Made on the goroutine's first sleep, before the CAS that lets
		// a waker find w (through c.sleeper, stored after it): no waker
		// can have loaded w.wake yet.
		w.wake = make(chan struct{}, 1)
	}
	if !c.word.CompareAndSwap(running, sleeping) {
		return false
	}
	c.sleeper.Store(w) // after the CAS and before the re-check: see wakeSleeper
	if !e.idle(c) {
		if c.word.CompareAndSwap(sleeping, running) {
			return true // cancelled our own sleep: no token was sent
		}
		// A waker won the CAS and sends the token; take it.
	} else {
		e.stats.sleeps.Add(1)
	}
	for {
		<-w.wake
		switch c.word.Load() {
		case running:
			c.beat.Add(1) // a fresh heartbeat: we are not stuck, just woken
			return true
		case sleeping:
			// A token with no CAS behind it cannot happen by the
			// protocol; if one ever did, waiting again is safe.
			continue
		}
		// Woken, then sysmon saw a Running core with an old beat and work
		// in its inbox and gave it to a new owner before we looked: the
		// core is not ours any more.
		return false
	}
}
