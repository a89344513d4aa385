package goruntime

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// plainRelease reports whether a plain store of a word is a release store,
// which is so on amd64 (it does not reorder a store with earlier stores,
// and the compiler keeps stores in program order around atomics), like
// the Go runtime's atomic.StoreRel; there atomic.Store would be an XCHG,
// which waits for the store buffer to drain. Elsewhere, and under the race
// detector (which cannot see the ordering), StoreRel and StoreRelPointer
// are atomic stores: on arm64 a store-release, which already does not
// wait.
const plainRelease = !RaceEnabled && runtime.GOARCH == "amd64"

// StoreRel stores v into *p with release ordering: everything the caller
// wrote before it is visible to a goroutine whose atomic load of *p sees
// v. It is a plain store where plainRelease holds, else p.Store(v). It
// gives no other ordering: a later load by the caller may be performed
// before the store is visible to others (no sequential consistency), so
// it must not be one half of a Dekker pair.
func StoreRel(p *atomic.Uint32, v uint32) {
	if !plainRelease {
		p.Store(v)
		return
	}
	*(*uint32)(unsafe.Pointer(p)) = v
}

// StoreRelPointer is StoreRel for a pointer (with the write barrier of a
// pointer store).
func StoreRelPointer[T any](p *atomic.Pointer[T], v *T) {
	if !plainRelease {
		p.Store(v)
		return
	}
	*(**T)(unsafe.Pointer(p)) = v
}

// StoreRelUintptr is StoreRel for a uintptr.
func StoreRelUintptr(p *atomic.Uintptr, v uintptr) {
	if !plainRelease {
		p.Store(v)
		return
	}
	*(*uintptr)(unsafe.Pointer(p)) = v
}
