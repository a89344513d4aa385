package kc

import (
	"sync/atomic"
	"unsafe" // for the stripes' alignment and plain increments

	"github.com/kcbench/kcbench/internal/goruntime"
)

// Stats holds the spec 01 counters. Each counts its event exactly once:
// JobsCreated per job created (root, child, deferred, scope, nursery);
// CancellationsRequested per job moved to Cancelling (propagated ones too);
// JobsFailed, JobsCompleted, JobsCancelled per job reaching that terminal
// state; WaitersRegistered per blocking wait that registered on a job's
// waiter list (Join, Await, AwaitAll, WaitAll); WaitersWoken per such waiter
// woken, for whatever reason (so once all waits are over the two are equal).
type Stats struct {
	JobsCreated            uint64
	CancellationsRequested uint64
	JobsFailed             uint64
	JobsCompleted          uint64
	JobsCancelled          uint64
	WaitersRegistered      uint64
	WaitersWoken           uint64
}

type counter int

const (
	cCreated counter = iota
	cCancelReq
	cFailed
	cCompleted
	cCancelled
	cWaitReg
	cWaitWoken
	numCounters
)

// stripe is one cache line of counters.
type stripe struct {
	c [numCounters]atomic.Uint64
	_ [64 - numCounters*8]byte
}

// counters holds one stripe per P (the Go scheduler's processor slot, as
// many as GOMAXPROCS when the Runtime was made) plus a shared one for the
// Ps beyond them (GOMAXPROCS raised later).
//
// Writers: a goroutine counts on the stripe of the P it runs on, pinned to
// it (procPin), so no other goroutine can write that stripe until it
// unpins: the stripe has one writer at a time, and a plain (non-atomic)
// increment is exact. Readers (snapshot) load the words atomically while
// writers may be incrementing; on the 64-bit platforms Go supports an
// aligned word is written and read whole, and the memory model promises a
// racy read of a word some value that was written to it, so a snapshot
// sees each counter's old or new value. Counters are diagnostics: no
// ordering rides on them. Under the race detector (which cannot see the
// pin's exclusion) every increment is an atomic add instead (race.go).
// The shared stripe always takes atomic adds.
//
// Each stripe is its own cache line (the backing array is aligned by
// hand), so a job created on one core and finished on another does not
// drag a counter line between them, and the slice header the writers read
// shares no line with any stripe.
type counters struct {
	stripes []stripe // one per P, 64-byte aligned; the slice header is read-only
	shared  *stripe  // Ps beyond len(stripes): atomic adds
}

func newCounters(procs int) *counters {
	procs = max(procs, 1)
	// One spare stripe's worth of room to slide to a 64-byte boundary.
	words := make([]uint64, (procs+2)*8)
	off := 0
	for uintptr(unsafe.Pointer(&words[off]))%64 != 0 {
		off++
	}
	s := unsafe.Slice((*stripe)(unsafe.Pointer(&words[off])), procs+1)
	return &counters{stripes: s[:procs], shared: &s[procs]}
}

// add counts one event c on the stripe of the caller's P. Pinned
// (goruntime.ProcPin), the goroutine stays on its P, so the stripe it
// picked is its own P's for the add.
func (cs *counters) add(c counter) { cs.addN(c, 1) }

// addN counts n events c at once on the stripe of the caller's P, as add
// does one.
func (cs *counters) addN(c counter, n uint64) {
	if pid := goruntime.ProcPin(); pid < len(cs.stripes) {
		if goruntime.RaceEnabled {
			cs.stripes[pid].c[c].Add(n)
		} else {
			p := (*uint64)(unsafe.Pointer(&cs.stripes[pid].c[c]))
			*p += n // pinned: the only writer of this stripe (see counters)
		}
	} else {
		cs.shared.c[c].Add(n)
	}
	goruntime.ProcUnpin()
}

func (cs *counters) snapshot() Stats {
	var sum [numCounters]uint64
	for i := -1; i < len(cs.stripes); i++ {
		s := cs.shared
		if i >= 0 {
			s = &cs.stripes[i]
		}
		for c := range sum {
			sum[c] += s.c[c].Load()
		}
	}
	return Stats{sum[cCreated], sum[cCancelReq], sum[cFailed], sum[cCompleted],
		sum[cCancelled], sum[cWaitReg], sum[cWaitWoken]}
}
