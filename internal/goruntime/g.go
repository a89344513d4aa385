//go:build amd64 || arm64

package goruntime

// GOK reports whether G works on this architecture. Where it is false, G
// returns 0 and callers must identify goroutines some other way (or not
// at all: the runtimes then take their plain blocking paths).
const GOK = true

// G returns the address of the calling goroutine's runtime g, an identity
// that stays the same for the goroutine's whole life and that no other
// live goroutine shares. It is only an identity: the runtime may reuse a
// dead goroutine's g for a new goroutine, so a table keyed by G must drop
// an entry before its goroutine exits. Cost: a call and one load (it reads
// the g register on arm64, the thread-local g slot on amd64); it never
// reschedules the caller.
func G() uintptr
