package kc

import "github.com/kcbench/kcbench/internal/goruntime"

// slabJobs is how many jobs Launch carves out of one allocation.
const slabJobs = 7

// jobSlab is the per-P cache of the core: the current slab of one P, an
// array of jobs allocated at once, of which the first n have been handed
// out, and the P's free wait nodes. Only a goroutine pinned to the
// P (goruntime.ProcPin) touches it, so its fields need no atomics: a pin excludes
// every other goroutine from the P until it unpins, and the scheduler's own
// synchronization orders one pinned section after the previous one on that
// P. It fills a cache line, so no two Ps share one.
type jobSlab struct {
	jobs *[slabJobs]Job
	n    int
	// free is the P's cache of wait nodes for reuse (newWaiter), linked
	// through next, nfree of them.
	free  *waiter
	nfree int
	_     [64 - 32]byte
}

// newJob returns a zeroed Job for Launch. Outside the race detector it carves
// jobs out of per-P slabs of slabJobs: one allocation of seven jobs, whose
// 896 bytes and the 8-byte malloc header of a pointerful object over 512
// bytes fill the 1024-byte size class, instead of seven. A launch thus
// pays the allocator's per-call cost, and meets its slow paths (refilling
// its span cache, sweeping, assisting the collector), once per seven
// launches; those slow paths set much of the tail (p99) of a launch's
// latency. The price is retention: a slab stays allocated while any of its
// jobs is referenced, so a long-held *Job keeps up to 1 KiB alive (the
// same trade as Go's tiny allocator). Under the race detector, which
// cannot see that a pin makes the slab's fields single-writer, every job
// is its own allocation.
func (rt *Runtime) newJob() *Job {
	if goruntime.RaceEnabled {
		return new(Job)
	}
	pid := goruntime.ProcPin()
	if pid < len(rt.slabs) {
		if s := &rt.slabs[pid]; s.jobs != nil && s.n < slabJobs {
			j := &s.jobs[s.n]
			s.n++
			goruntime.ProcUnpin()
			return j
		}
	}
	goruntime.ProcUnpin()
	a := new([slabJobs]Job) // unpinned: allocating may assist the GC
	// Install the rest as this P's slab. If the goroutine moved, or another
	// one installed a slab meanwhile, the one replaced is dropped: the jobs
	// it handed out stay valid, the rest are garbage.
	pid = goruntime.ProcPin()
	if pid < len(rt.slabs) {
		s := &rt.slabs[pid]
		s.jobs, s.n = a, 1
	}
	goruntime.ProcUnpin()
	return &a[0]
}

// waiterCacheMax is the most wait nodes one P keeps for reuse.
const waiterCacheMax = 64

// newWaiter returns a zeroed wait node of the given kind: one from the
// caller's P's cache if it has one (see freeWaiter), else a new one.
// Like the slabs, the cache is only touched pinned, and not at all under
// the race detector; nor with a tracer installed, whose events name
// waiters by address (Event.Waiter), which must not repeat.
func (rt *Runtime) newWaiter(kind uint8) *waiter {
	if !goruntime.RaceEnabled && rt.tracer == nil {
		pid := goruntime.ProcPin()
		if pid < len(rt.slabs) {
			if s := &rt.slabs[pid]; s.free != nil {
				w := s.free
				s.free, s.nfree = w.next, s.nfree-1
				goruntime.ProcUnpin()
				w.next, w.kind = nil, kind
				return w
			}
		}
		goruntime.ProcUnpin()
	}
	return &waiter{kind: kind}
}

// freeWaiter gives w back for reuse by newWaiter. The caller owns w, and
// nobody else may touch it any more: it is off the target's waiter list
// and its hook off the canceller's hooks, both removed by the caller or
// taken by the waker whose wake won (whose last touch of w was the
// Parker's signal, see handoff.go), and no timer or losing waker holds it
// (see wait for when that holds).
func (rt *Runtime) freeWaiter(w *waiter) {
	if goruntime.RaceEnabled || rt.tracer != nil {
		return
	}
	*w = waiter{}
	pid := goruntime.ProcPin()
	if pid < len(rt.slabs) {
		if s := &rt.slabs[pid]; s.nfree < waiterCacheMax {
			w.next = s.free
			s.free = w
			s.nfree++
		}
	}
	goruntime.ProcUnpin()
}
