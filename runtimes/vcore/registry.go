package vcore

import (
	"sync/atomic"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// worker is the record of one owner goroutine, or of one context (ctx.go),
// which embeds it. A goroutine or context keeps one worker for its whole
// life and gives it a fresh id for each owner it is (start): for one run of
// workerMain it owns a core, hands the core off in Park (its body goes on
// unlocked, or its context is suspended), hands it to a woken context
// (switchTo), or has the core taken away by sysmon; it is then started as
// another owner, under a new id, from the pool. A woken context granted a
// core keeps its own id (switchTo), as a goroutine that takes its core back
// does (reacquire), or gets the fresh one its granter moved the core's word
// to (ownerFor).
//
// Every field but id and wake is touched only by the goroutine or context
// itself (a context's also by whoever owns it while it is not running, see
// ctxState), so none needs a lock or an atomic; other goroutines learn about ownership
// from core.word, never from here. A waker reaches a worker only through
// core.sleeper, which may still name the record after its goroutine has
// moved on to a new id: id is atomic for that load, and a stale record
// whose id no longer matches the core's word is ignored (wakeSleeper).
//
// The fields fit one cache line (64 bytes on 64-bit platforms, the
// allocator's 64-byte size class, so the record never straddles two lines):
// a parked task's goroutine woken after a long wait (the walk of a
// cancelled scope wakes thousands) touches kw, role and core on its way
// out, and each line of its record it touches is a cache miss.
type worker struct {
	kw   kc.Worker // releases of its tasks' parents, batched; flushed before it waits for work or exits
	core *core     // the core it locked its thread for, or nil (coreless)

	// wake (capacity 1) is the sleep token: sent by the winner of the CAS
	// Sleeping(id) -> Running(id) on the core this worker sleeps on
	// (Executor.wakeSleeper), received only by this goroutine, in sleep.
	// nil until the goroutine's first sleep makes it, before the CAS that
	// lets a waker find w; then kept for every later owner of the
	// goroutine, so a token sent to an earlier one may be left in it
	// (sleep re-checks the core's word after every token).
	wake chan struct{}

	due int64 // mono time the short timer its task armed last is due, 0 if none (timer.go)

	// id names the current owner in core.word: > 0 and unique in its
	// executor for each start. Stored by the goroutine itself (start)
	// before it publishes the record anywhere for that id; loaded by
	// wakers through core.sleeper (wakeSleeper).
	id atomic.Uint64

	slot   int32      // registry slot while registered, else -1
	tick   uint8      // polls, for the fairness rule (worker.go); wraps harmlessly
	role   workerRole // see workerRole
	locked bool       // LockOSThread is in effect (not loosened, idle.go); then core != nil
	isCtx  bool       // the worker of a context (ctx.go), immutable: ctxOf leads to it
}

// workerRole is what an owner goroutine is at a given moment. Only the
// goroutine itself reads or writes its role; other goroutines go by
// core.word alone.
type workerRole uint8

const (
	// roleOwner: the owner of w.core as far as it knows, locked to its thread
	// and registered while it runs a task (an unpinned owner unlocks, and with
	// thread keys unregisters, while it spins, sleeps or parks; see idle.go)
	// (sysmon may have taken the core; the goroutine finds out at its next
	// check, lost). Next: roleParked (Park hands the core off), roleCoreless
	// (it found the core taken), roleDone (stop, or a body's Goexit).
	roleOwner workerRole = iota

	// roleParked: inside Park, unlocked, its core given away, waiting for
	// the wake (blocked, or its context suspended). Next: roleOwner (it
	// took a Free core back, or was granted one), roleCoreless.
	roleParked

	// roleCoreless: unlocked, no core: finishing a body on a plain
	// goroutine. Next: roleOwner (it adopts a Free core once the body
	// returns), roleDone (there is none: a temporary worker retires).
	roleCoreless

	// roleDone: the goroutine is ending. Terminal.
	roleDone
)

// registry maps goroutines (or, where goruntime.G is missing, OS threads)
// to the workers that own a core on them, so that Park, which is given only
// a *kc.Parker, can tell whether its caller owns a core.
//
// The key is regKey: the calling goroutine's g (goruntime.G, a call and a
// load) where goruntime.GOK holds, else the calling thread's threadID. A g
// names one live goroutine, so a g key is exact on any goroutine, locked or
// not. A thread id is exact only while the thread is locked (a locked
// thread runs nothing but its goroutine), which is why a worker registers
// after LockOSThread and unregisters before UnlockOSThread, and why self
// pins the caller while it looks up a thread id. A worker is in the
// registry while it owns its core (worker.lock to worker.unlock) and, with
// thread keys, holds its thread locked (an owner that loosens its thread,
// idle.go, leaves it meanwhile); it leaves before its goroutine can end,
// so a reused g (the runtime recycles dead goroutines' g) never finds a
// stale entry.
//
// Slot protocol: key is the slot's lock. A worker claims a free slot with
// CAS key 0 -> its key, then stores w; it leaves by storing w = nil, then
// key = 0. Lookups by the owner itself see its own stores in program order.
// The zero registry has no slots: add leaves every worker unregistered and
// self finds nobody; call init. So does a registry keyed by thread on an OS
// without thread ids (tid.go). Cost: add and remove are a CAS or two; self
// is a regKey (a load with g keys; a system call on Linux, macOS and
// FreeBSD with thread keys) and a scan of at most hwm slots.
type registry struct {
	slots []regSlot    // immutable slice header after init; nil without keys
	hwm   atomic.Int32 // slots at or above hwm were never used; only grows
}

type regSlot struct {
	key atomic.Uint64 // regKey of the slot's worker; 0: free
	w   atomic.Pointer[worker]
}

// regByG is whether the registry is keyed by goroutine (goruntime.G) rather
// than by thread.
const regByG = goruntime.GOK

// regKey is the calling goroutine's registry key; see registry.
func regKey() uint64 {
	if regByG {
		return uint64(goruntime.G())
	}
	return threadID()
}

// init sizes the registry for n workers locked at once: the cores' owners
// plus the bounded number of goroutines sysmon took a core from. Keyed by
// thread without working thread ids, it leaves the registry slotless.
func (r *registry) init(n int) {
	if regByG || threadIDsWork() {
		r.slots = make([]regSlot, n)
	}
}

// add registers w for the calling goroutine (thread). If every slot is
// taken (which the retake bound rules out), w runs unregistered: its Park
// then waits without handing its core off, slower but correct.
func (r *registry) add(w *worker) {
	var key uint64
	if len(r.slots) > 0 {
		key = regKey()
	}
	for i := range r.slots {
		s := &r.slots[i]
		if s.key.Load() != 0 || !s.key.CompareAndSwap(0, key) {
			continue
		}
		s.w.Store(w)
		w.slot = int32(i)
		for {
			h := r.hwm.Load()
			if int32(i) < h || r.hwm.CompareAndSwap(h, int32(i)+1) {
				return
			}
		}
	}
	w.slot = -1
}

// remove unregisters w; it must be called by w's goroutine (keyed by
// thread: before unlocking).
func (r *registry) remove(w *worker) {
	if w.slot < 0 {
		return
	}
	s := &r.slots[w.slot]
	s.w.Store(nil)
	s.key.Store(0)
	w.slot = -1
}

// hand moves from's slot to the worker to, under key, to's goroutine:
// from hands its core to to, whose owner stint starts when from's
// goroutine switches to it (drive.go). Nobody looks key up meanwhile (only
// to's own goroutine does, and it does not run until the switch), so the
// two stores need no lock. From then on from is unregistered. Only with
// goroutine keys, where contexts exist.
func (r *registry) hand(from, to *worker, key uint64) {
	if from.slot < 0 {
		return
	}
	s := &r.slots[from.slot]
	s.key.Store(key)
	s.w.Store(to)
	to.slot, from.slot = from.slot, -1
}

// self returns the worker registered for the calling goroutine, or nil.
//
// With g keys that is a plain scan: only the caller's own worker can hold
// the caller's g. With thread keys the caller need not be locked: a body
// that parked once and came back coreless may park again, and so may a
// goroutine of the body's own. An unlocked goroutine can move off its
// thread between the threadID and the scan, and another goroutine can lock
// that thread and register it meanwhile: the scan would then return that
// goroutine's worker. So self then stays pinned to its P
// (goruntime.ProcPin: the goroutine neither moves nor yields) from the
// threadID to the end of the scan. While it runs on the thread, no other
// goroutine holds the thread locked, and a slot cannot name the thread
// without being the caller's own: add comes after LockOSThread and remove
// before UnlockOSThread.
func (r *registry) self() *worker {
	n := int(r.hwm.Load())
	if n == 0 {
		return nil
	}
	if regByG {
		return r.find(regKey(), n)
	}
	goruntime.ProcPin()
	w := r.find(threadID(), n)
	goruntime.ProcUnpin()
	return w
}

// find returns the worker of the slot below n that holds key, or nil.
func (r *registry) find(key uint64, n int) *worker {
	for i := range n {
		if r.slots[i].key.Load() == key {
			return r.slots[i].w.Load()
		}
	}
	return nil
}
