package goruntime

import "unsafe"

// Park parks the calling goroutine, as a channel operation does: the
// runtime puts it into a waiting state, then calls commit(g, arg) on the
// scheduler's stack, where g identifies the parked goroutine for Ready. If
// commit returns false the goroutine goes on running at once; if true it
// stays parked until some goroutine calls Ready(g). commit runs on the
// system stack with the goroutine already marked waiting, so it may be
// readied as soon as commit publishes g: it must be tiny, must not
// allocate, block or grow the stack (mark it //go:nosplit), and must not
// call into the race detector (its atomics are race-instrumented calls in
// race builds, which crash on the system stack: callers keep Park out of
// race builds). Cost: one goroutine switch, no lock.
//
// g is the runtime's *g as a uintptr, which is safe to hold: the runtime
// never frees a g (it keeps every one in allgs), and a plain integer needs
// no write barrier on the system stack.
//
// Park and Ready are the runtime's gopark and goready, kept
// linkname-accessible on purpose (go.dev/issue/67401). The wait shows in
// goroutine dumps with an empty reason.
func Park(commit func(g uintptr, arg unsafe.Pointer) bool, arg unsafe.Pointer) {
	gopark(commit, arg, waitReasonZero, traceBlockGeneric, 1)
}

// Ready makes the goroutine g, parked by Park, runnable: it goes to the
// calling P's next slot (the Go scheduler's runnext), so it runs as soon
// as the caller blocks or yields. g must have been published by a commit
// that returned true, and be readied exactly once.
func Ready(g uintptr) { goready(g, 1) }

const (
	waitReasonZero    = 0 // runtime.waitReasonZero: no reason shown
	traceBlockGeneric = 0 // runtime.traceBlockGeneric
)

//go:linkname gopark runtime.gopark
func gopark(unlockf func(uintptr, unsafe.Pointer) bool, lock unsafe.Pointer, reason uint8, traceReason uint8, traceskip int)

//go:linkname goready runtime.goready
func goready(gp uintptr, traceskip int)

// Yield puts the calling goroutine at the back of its P's local run queue
// and runs the next goroutine there, as runtime.Gosched does, but without
// the global run queue: no scheduler lock, and no wake of an idle P (which
// Gosched does so that the global queue is served). A yielder therefore
// stays on its P unless another P steals it. It is the runtime's goyield,
// kept linkname-accessible on purpose (go.dev/issue/67401).
//
//go:linkname Yield runtime.goyield
func Yield()
