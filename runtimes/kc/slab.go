package kc

import "github.com/kcbench/kcbench/internal/goruntime"

// slabJobs is how many jobs Launch carves out of one allocation.
const slabJobs = 4

// jobSlab is the current slab of one P: an array of jobs allocated at once,
// of which the first n have been handed out. Only a goroutine pinned to the
// P (goruntime.ProcPin) touches it, so its fields need no atomics: a pin excludes
// every other goroutine from the P until it unpins, and the scheduler's own
// synchronization orders one pinned section after the previous one on that
// P. It fills a cache line, so no two Ps share one.
type jobSlab struct {
	jobs *[slabJobs]Job
	n    int
	_    [64 - 16]byte
}

// newJob returns a zeroed Job for Launch. Outside the race detector it carves
// jobs out of per-P slabs of slabJobs: one 512-byte allocation (the largest
// size class without a malloc header; 512-aligned, so every job starts a
// cache line pair) instead of four: in an interleaved A/B of stealing's
// JobCreate against slabJobs = 1 it took more than a quarter off the median.
// The price is retention: a slab stays allocated while any of its jobs is
// referenced, so a long-held *Job keeps up to 512 bytes alive (the same trade
// as Go's tiny allocator). Under the race detector, which cannot see that a
// pin makes the slab's fields single-writer, every job is its own allocation.
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
		rt.slabs[pid] = jobSlab{jobs: a, n: 1}
	}
	goruntime.ProcUnpin()
	return &a[0]
}
