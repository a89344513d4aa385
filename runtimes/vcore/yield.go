package vcore

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
	"golang.org/x/sys/cpu"
)

// osYieldAfter is how many Yields in a row (see pollGap) a goroutine makes
// before each further one also gives its thread up to the OS
// (goruntime.OSYield).
const osYieldAfter = 16

// pollGap bounds the time from the end of one Yield's Gosched to the end
// of the next one's (where each Yield looks at its row) for the two to
// count as in a row: a body that polls with Yield does almost
// nothing in between, and one that waits in between (parks, runs an op of
// its own) starts a new row.
const pollGap = 5 * time.Microsecond

// epoch is the origin of yieldSlot.at: time.Since(epoch) reads the
// monotonic clock.
var epoch = time.Now()

// Yield is kc.Yielder: Job.Yield calls it. vcore cannot move a body to the
// back of a run queue (a task's stack is its goroutine's), so Yield lets
// other goroutines have the P (runtime.Gosched), as Job.Yield does without
// a Yielder. A core's owner running a task yields with its thread
// unlocked (loosen, idle.go), keeping its core: a locked goroutine's
// Gosched hands its P to another thread and back, tens of µs where an
// unlocked one's costs a few hundred ns. A pinned owner, which never
// loosens, yields locked.
//
// A body that polls with Yield waits for a task running on another core,
// and Gosched keeps its thread busy. The OS may have put that core's
// owner thread on the same CPU (two threads of the process runnable on one
// CPU while the other CPU runs something else, until the kernel balances
// them, milliseconds later): the poller then takes the CPU's time slices
// while the task it waits for waits for the CPU. So after osYieldAfter
// Yields in a row, each further one also gives the thread up to the OS
// (goruntime.OSYield), as the Go runtime's own spin waits do; a poller
// that waits for a task running elsewhere loses nothing by it.
func (e *Executor) Yield() {
	if w := e.lockedOwner(); w != nil {
		e.loosen(w)
		runtime.Gosched()
		e.tighten(w)
	} else {
		runtime.Gosched()
	}
	if e.yields.inRow() > osYieldAfter {
		goruntime.OSYield()
	}
}

// lockedOwner returns the caller's worker if the caller is a core's owner
// with its thread locked (running a task), else nil. An unlocked caller
// is none (an owner's body runs locked), which spares it the registry
// lookup, a system call with thread keys.
func (e *Executor) lockedOwner() *worker {
	if !goruntime.LockedOSThread() {
		return nil
	}
	if w := e.reg.self(); w != nil && w.locked {
		return w
	}
	return nil
}

// yieldRows counts Yields in a row, per P: a row is a run of Yields by one
// goroutine on one P, each looking at the row (after its Gosched) less than
// pollGap after the one before. A poller moved to another P starts a new row
// there, which only delays its OSYield. Where goroutines have no identity
// (goruntime.GOK false) the goroutines of a P share its rows. The zero
// yieldRows counts nothing (inRow reports 1); init sizes it.
type yieldRows struct {
	slots []yieldSlot // immutable slice header after init; one per P (modulo)
}

// yieldSlot is one P's row. Its fields are read and written only inside a
// goruntime.ProcPin section on the P whose slot it is (or, with more Ps
// than slots, one of the Ps sharing it), so a slot is mostly touched by
// one thread at a time; they are atomics because goroutines taking turns
// on a P have no happens-before edge between them, and two Ps may share a
// slot. Nothing but the row's length rides on them: a torn row (two
// goroutines updating one slot at once) only starts a row anew or lets
// one Yield call goruntime.OSYield early.
type yieldSlot struct {
	_  cpu.CacheLinePad
	g  atomic.Uintptr // the goroutine of the row (goruntime.G; 0 where !GOK)
	at atomic.Int64   // when its last Yield looked at the row (after its Gosched), ns since epoch
	n  atomic.Uint32  // Yields in the row so far
}

func (r *yieldRows) init(procs int) { r.slots = make([]yieldSlot, max(procs, 1)) }

// inRow records a Yield by the caller and returns how many the caller's
// row holds now, this one included (at most osYieldAfter+1).
func (r *yieldRows) inRow() uint32 {
	if len(r.slots) == 0 {
		return 1
	}
	g := goruntime.G()
	now := int64(time.Since(epoch))
	s := &r.slots[goruntime.ProcPin()%len(r.slots)]
	n := uint32(1)
	if s.g.Load() == g && now-s.at.Load() < int64(pollGap) {
		n = min(s.n.Load(), osYieldAfter) + 1 // saturates: a long poll never wraps
	}
	s.g.Store(g)
	s.at.Store(now)
	s.n.Store(n)
	goruntime.ProcUnpin()
	return n
}
