// Package goruntime is the module's one window onto Go runtime internals: the
// processor pin that sync.Pool uses, the calling goroutine's g (G), the
// runtime's cheap random numbers (CheapRandN), whether the race detector
// is on, release stores that are plain stores where the architecture
// makes them so (StoreRel, release.go), cache prefetch hints that cannot
// fault (PrefetchLines, prefetch.go), and what the coroutine drivers of the
// backends share: the prefetch of a suspended coroutine's resume and the
// release of a body's leftover thread locks (PrefetchResume,
// UnlockOSThreadAll, resume.go). Packages use these names instead of
// declaring their own linknames or build-tagged constants.
package goruntime

import _ "unsafe" // for go:linkname

// ProcPin disables preemption of the calling goroutine and returns the id
// of the P (the scheduler's processor slot) it is running on; ProcUnpin
// undoes it. Between the two the goroutine neither moves to another thread
// nor yields, and no other goroutine runs on that P, so a pinned goroutine
// is the only user of per-P data with that index. Both are the runtime's
// procPin and procUnpin, kept linkname-accessible on purpose
// (go.dev/issue/67401; sync.Pool relies on the same pair). A pinned section
// must not block, allocate, or take a lock that can park. Cost: about 1 ns
// each; a call of either compiles to a direct call into the runtime.
//
//go:linkname ProcPin runtime.procPin
func ProcPin() int

// ProcUnpin ends the pinned section ProcPin began.
//
//go:linkname ProcUnpin runtime.procUnpin
func ProcUnpin()

// LockedOSThread reports whether the calling goroutine is locked to its OS
// thread (runtime.LockOSThread). A coroutine must not switch away while it
// is: the runtime throws when a coroutine switch changes the thread lock.
// It is the runtime's lockedOSThread, kept linkname-accessible on purpose
// (runtime/linkname.go). Cost: a call and two loads.
//
//go:linkname LockedOSThread runtime.lockedOSThread
func LockedOSThread() bool

// CheapRandN returns a pseudo-random number in [0, n), n > 0, from the
// calling thread's fast generator: not cryptographically random, and not
// seeded by the program (it is what the runtime's own select uses to pick
// among ready cases). It is the runtime's cheaprandn, kept
// linkname-accessible on purpose (go.dev/issue/67401). Cost: a few
// nanoseconds, about half of math/rand/v2's IntN.
//
//go:linkname CheapRandN runtime.cheaprandn
func CheapRandN(n uint32) uint32
