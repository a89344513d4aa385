package vcore

import (
	"sync/atomic"
	"time"

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
	// work waits, else -> Free), closes it at shutdown (-> Closed); sysmon
	// retakes it from a stuck owner (-> Running(new id)).
	coreRunning

	// coreSleeping: the owner is blocked on core.wake. Whoever wins the
	// CAS Sleeping -> Running(same id) must send the wake token (or is the
	// owner itself cancelling its sleep). Only the owner enters it.
	coreSleeping

	// coreClosed: terminal, set at shutdown; nothing may claim the core.
	coreClosed
)

const stateBits = 2

func mkword(id uint64, s coreState) uint64 { return id<<stateBits | uint64(s) }
func stateOf(w uint64) coreState           { return coreState(w & (1<<stateBits - 1)) }
func ownerOf(w uint64) uint64              { return w >> stateBits }

// core is a virtual core (spec 05's worker slot, Go's P): an inbox of
// runnable tasks and exactly one owning goroutine at a time. The number of
// cores is fixed at New; goroutines come and go around them.
type core struct {
	_ cpu.CacheLinePad

	// word is owner id and coreState; see coreState for who may move it.
	// All accesses are atomic: a CAS that succeeds publishes the new owner
	// to everyone who loads the word afterwards (acq_rel), and the
	// Sleeping store / queue re-check pair relies on sequential consistency
	// (spec 05's Dekker rule; see Executor.sleep).
	word atomic.Uint64

	// beat counts tasks started on the core (spec 05's heartbeat). Written
	// (Add) by the owner; read by sysmon, which retakes a core whose beat
	// has not moved while work waits. It is diagnostic-grade: a lost or
	// doubled count only delays or hastens a bounded rescue.
	beat atomic.Uint64

	inbox ring          // runnable tasks for this core; any core may steal from it
	wake  chan struct{} // capacity 1: the sleep token; see coreSleeping
	id    int           // index in Executor.cores; immutable
	cpu   int           // CPU to pin the owner to, or -1; immutable

	// Sysmon's private view; touched only by the sysmon goroutine.
	seenBeat uint64
	seenAt   time.Time
}

func (c *core) init(id, cpuID, inboxSize int) {
	c.id, c.cpu = id, cpuID
	c.inbox.init(inboxSize)
	c.wake = make(chan struct{}, 1)
}

// signal sends the wake token without blocking; a token already there is
// enough (the owner re-checks everything after waking).
func (c *core) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}
