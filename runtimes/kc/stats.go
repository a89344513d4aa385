package kc

import (
	"sync/atomic"
	"unsafe" // for go:linkname and Sizeof
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

const numStripes = 8 // power of two

// stripe is one cache line of counters. Counters are striped by the P (the
// Go scheduler's processor slot) the counting goroutine runs on, so a job
// created on one core and finished on another does not drag a counter line
// between them; with GOMAXPROCS <= numStripes no two Ps share a line.
// Counters are diagnostics: they use atomic adds only for exactness (two Ps
// may share a stripe, and snapshot reads concurrently), never for ordering.
type stripe struct {
	c [numCounters]atomic.Uint64
	_ [64 - numCounters*8]byte
}

// counters is the stripes, after one stripe that is never counted on: the
// compiler's nil check of a *counters reads the object's first byte, and
// were that a live stripe, every add on another P would pull its line over
// (it cost JobCreate on stealing about a fifth of its time).
type counters [1 + numStripes]stripe

// procPin and procUnpin are the runtime's, kept linkname-accessible on
// purpose (go.dev/issue/67401; sync.Pool uses them): pinned, the goroutine
// stays on its P, so the stripe it picked is its own P's for the add.
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// add counts one event c on the stripe of the caller's P.
func (cs *counters) add(c counter) {
	cs[1+procPin()&(numStripes-1)].c[c].Add(1)
	procUnpin()
}

func (cs *counters) snapshot() Stats {
	var sum [numCounters]uint64
	for i := 1; i < len(cs); i++ {
		for c := range sum {
			sum[c] += cs[i].c[c].Load()
		}
	}
	return Stats{sum[cCreated], sum[cCancelReq], sum[cFailed], sum[cCompleted],
		sum[cCancelled], sum[cWaitReg], sum[cWaitWoken]}
}

// The stripes must fill a size class exactly for the alignment argument in
// Runtime.stats: 9 stripes of 64 bytes, the 576-byte class, whose objects
// start at multiples of 576 (so of 64) from a page boundary.
var _ [0]struct{} = [unsafe.Sizeof(counters{}) - 576]struct{}{}
