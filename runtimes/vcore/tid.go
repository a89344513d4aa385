package vcore

import (
	"runtime"
	"sync"
)

// threadID (in tid_GOOS.go) returns an identity of the calling OS thread:
// non-zero, and distinct from every other live thread's. It must not
// reschedule the caller (no entersyscall: registry.self calls it pinned to
// its P). Where the OS offers no such call, it returns 0, and the registry
// stays empty (see threadIDsWork).

// threadIDsWork reports whether threadID gives distinct non-zero ids, once
// per process: two goroutines, each locked to its own thread, must see
// different ids, and the same one twice. If not (an OS without threadID,
// or one whose call misbehaves), the registry is never used: Park then
// waits without handing its core off, and sysmon's retake keeps the other
// tasks running, which is slower but correct.
var threadIDsWork = sync.OnceValue(func() bool {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a := threadID()
	other := make(chan uint64)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		other <- threadID()
	}()
	b := <-other
	return a != 0 && b != 0 && a != b && threadID() == a
})
