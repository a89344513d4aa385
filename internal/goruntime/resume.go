package goruntime

import "runtime"

// Lines PrefetchResume asks for: the start of the goroutine's runtime g
// (its status word and saved registers, which a coroutine switch reads and
// CASes), and the stack from resumeBelowSP bytes below sp (the switch's
// own frames) up.
const (
	resumeGLines     = 4
	resumeBelowSP    = 128
	resumeStackLines = 10
)

// PrefetchResume starts loading what the resume of a suspended coroutine
// touches first, where the memory of one suspended long ago has gone
// cold: g is its goroutine (G), sp an address in the frame of its last
// suspend, near where the resume returns. A caller calls it for the
// coroutine it will resume after the one it is about to run, so that the
// fills overlap that run. It only prefetches (PrefetchLines), so a stale
// g or sp (the collector may move a suspended stack and free the old one)
// only wastes the prefetch. Cost: two calls of a few prefetch
// instructions each; no-ops where PrefetchLines is one.
func PrefetchResume(g, sp uintptr) {
	PrefetchLines(g, resumeGLines)
	PrefetchLines(sp-resumeBelowSP, resumeStackLines)
}

// UnlockOSThreadAll undoes every LockOSThread call of the calling
// goroutine still in effect: a coroutine that a task body left locked is
// about to switch to its driver, which the runtime allows only with the
// thread lock the coroutine had when it was made (none). On a goroutine of
// its own the lock would have ended with the goroutine; on a coroutine it
// ends with the body's stretch of the loop it runs.
func UnlockOSThreadAll() {
	for LockedOSThread() {
		runtime.UnlockOSThread()
	}
}
