package kc

import (
	"sync/atomic"
	"unsafe"
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

// stripe is one cache line of counters. Counters are striped by the address
// of the job an event concerns, so that workers creating and finishing
// different jobs rarely write the same line. Counters are diagnostics: they
// use atomic adds only for exactness, never for ordering.
type stripe struct {
	c [numCounters]atomic.Uint64
	_ [64 - numCounters*8]byte
}

type counters [numStripes]stripe

func (cs *counters) add(j *Job, c counter) {
	p := uintptr(unsafe.Pointer(j))
	cs[(p>>7^p>>11)&(numStripes-1)].c[c].Add(1)
}

func (cs *counters) snapshot() Stats {
	var sum [numCounters]uint64
	for i := range cs {
		for c := range sum {
			sum[c] += cs[i].c[c].Load()
		}
	}
	return Stats{sum[cCreated], sum[cCancelReq], sum[cFailed], sum[cCompleted],
		sum[cCancelled], sum[cWaitReg], sum[cWaitWoken]}
}
