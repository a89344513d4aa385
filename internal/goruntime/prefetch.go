//go:build amd64 || arm64

package goruntime

// PrefetchLines asks the processor to bring the n cache lines (64 bytes
// each) from addr up into its caches, so that a load from them later
// finds them there: PREFETCHT0 on amd64, PRFM PLDL1KEEP on arm64, n of
// them in a row. It is a hint and nothing else: it reads no memory the
// program can observe, and a prefetch of an address that is not mapped
// (freed, decommitted, never allocated) is dropped by the processor
// without a fault, so addr may be stale or wrong; the Go runtime's
// garbage collector prefetches arbitrary heap addresses the same way
// (internal/runtime/sys.Prefetch, which user code cannot call). Cost: a
// call and n prefetch instructions, a few ns; the fills it starts
// proceed while the caller goes on, and compete with its own misses for
// the core's line-fill buffers, so n should stay small.
//
//go:noescape
func PrefetchLines(addr uintptr, n uintptr)
