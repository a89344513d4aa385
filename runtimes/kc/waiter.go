package kc

import (
	"time"
	"unsafe"
)

// Waiter kinds: what a waiter on a job's list waits for.
const (
	waitTerminal uint8 = iota // the job is terminal (Join, Await, AwaitAll, Scope)
	waitChildren              // the job has no children left (WaitAll)
)

// waiter is one blocking wait (spec 05 wait node). It is on the target's
// waiter list from registration until whoever removes it (the waker that
// fulfils it, or the waiter itself after a cancel or timeout wake) counts
// and traces the wake: every registered waiter is woken exactly once.
type waiter struct {
	p          Parker
	prev, next *waiter    // in target.waiters; under target.mu
	linked     bool       // on target.waiters; under target.mu
	kind       uint8      // immutable
	hook       cancelNode // registered on the waiting job, if cancellable
}

func (w *waiter) id() uint64 { return uint64(uintptr(unsafe.Pointer(w))) }

func (j *Job) pushWaiterLocked(w *waiter) {
	w.next = j.waiters
	if j.waiters != nil {
		j.waiters.prev = w
	}
	j.waiters = w
	w.linked = true
	j.rt.stats.add(cWaitReg)
	if j.rt.tracer != nil {
		j.rt.trace(Event{Kind: EvJobWaitRegister, Job: j, Waiter: w.id()})
	}
}

// removeWaiterLocked unlinks w and counts and traces its wake.
func (j *Job) removeWaiterLocked(w *waiter) {
	j.unlinkWaiterLocked(w)
	j.rt.stats.add(cWaitWoken)
	if j.rt.tracer != nil {
		j.rt.trace(Event{Kind: EvJobWaitWake, Job: j, Waiter: w.id()})
	}
}

// unlinkWaiterLocked takes w off j.waiters.
func (j *Job) unlinkWaiterLocked(w *waiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		j.waiters = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	}
	w.prev, w.next, w.linked = nil, nil, false
}

// wakeWaitersLocked wakes the waiters of the given kind (all of them when
// kind is waitTerminal, since a terminal job has no children either).
// A wake never blocks (Parker.signal), so it is done with j.mu held; that
// keeps the wake events of a job before its finalize event.
func (j *Job) wakeWaitersLocked(kind uint8) {
	wakeWaiters(j.takeWaitersLocked(kind))
}

// wakeWaiters wakes the chain of waiters that takeWaitersLocked returned
// (Parker.wake; a waiter already woken by its cancellation or timer loses
// that CAS, and did not count itself: it was no longer linked). It reads
// each waiter's next before waking it: once woken, its owner returns.
func wakeWaiters(w *waiter) {
	for w != nil {
		next := w.next
		w.p.wake(wakeDone)
		w = next
	}
}

// takeWaitersLocked unlinks the waiters of the given kind (see
// wakeWaitersLocked), counting their wakes at once and tracing each, and
// returns them for wakeWaiters as a chain through next, in list order
// (newest first). Off the list, a waiter's links are no longer under
// j.mu: they belong to the chain, which only its taker reads.
func (j *Job) takeWaitersLocked(kind uint8) *waiter {
	rt := j.rt
	var skip *waiter
	if kind == waitTerminal && rt.faults.has(faultLostJoinWakeup) {
		for w := j.waiters; w != nil; w = w.next {
			skip = w // the oldest waiter: its wake is lost
		}
	}
	var head, tail *waiter
	n := uint64(0)
	for w := j.waiters; w != nil; {
		next := w.next
		if (kind == waitTerminal || w.kind == kind) && w != skip {
			j.unlinkWaiterLocked(w)
			if tail == nil {
				head = w
			} else {
				tail.next = w
			}
			tail = w
			n++
			if rt.tracer != nil {
				rt.trace(Event{Kind: EvJobWaitWake, Job: j, Waiter: w.id()})
			}
		}
		w = next
	}
	if n != 0 {
		rt.stats.addN(cWaitWoken, n)
	}
	if kind == waitChildren { // every WaitAll waiter is gone: releases need not lock
		j.state.And(^bitWaitAll)
	}
	return head
}

// wait blocks until j satisfies kind, until canceller (if not nil) is
// cancelled, or until timeout elapses (if > 0). It returns the wake reason.
// worker tells the executor whether the caller runs one of its tasks.
func (j *Job) wait(canceller *Job, kind uint8, timeout time.Duration, worker bool) uint32 {
	rt := j.rt
	w := rt.newWaiter(kind)
	if canceller != nil {
		canceller.list() // before the wait registers: see addHook
	}
	s := j.lockSlow()
	if kind == waitChildren {
		window(winWaitAllOr, j)
		s = j.state.Or(bitWaitAll) // see release
	}
	if stateOf(s).Terminal() || kind == waitChildren && holds(s) == 0 {
		j.mu.Unlock()
		rt.freeWaiter(w) // never published
		return wakeDone
	}
	w.p.init(worker)
	j.pushWaiterLocked(w)
	j.mu.Unlock()

	if canceller != nil {
		w.hook.w = w
		if how := canceller.addHook(&w.hook); how == hookFireNow {
			w.p.wake(wakeCancel)
		}
	}
	var t Timer
	if timeout > 0 {
		t = rt.timeoutWake(timeout, &w.p)
	}
	rt.ex.Park(&w.p)
	slowPoint()
	reason := w.p.reason.Load()
	// w can be reused (freeWaiter) only if no one else can still touch it:
	// the finish that woke it took it off j's list and made its last touch
	// in the wake; with no timer, and with its hook taken off the
	// canceller's list here (not detached by a cancel walk, which would
	// still fire it), no losing waker is left either.
	reuse := reason == wakeDone && t == nil
	if t != nil {
		t.Stop()
	}
	if canceller != nil {
		canceller.mu.Lock()
		if canceller.removeHookLocked(&w.hook) {
			canceller.unslowLocked()
		} else {
			reuse = false
		}
		canceller.mu.Unlock()
	}
	if reason != wakeDone {
		j.mu.Lock()
		if w.linked {
			j.removeWaiterLocked(w)
		}
		j.mu.Unlock()
	}
	if reuse {
		rt.freeWaiter(w)
	}
	return reason
}
