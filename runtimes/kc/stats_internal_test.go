package kc

import (
	"runtime"
	"sync"
	"testing"
	"unsafe"
)

// TestCountersExact guards the striped counters: concurrent adds from more
// goroutines than Ps, on a counters made for fewer Ps than the process has
// (so some adds take the shared stripe), must all be counted, and every
// stripe must be a cache line of its own.
func TestCountersExact(t *testing.T) {
	for _, procs := range []int{1, runtime.GOMAXPROCS(0)} {
		cs := newCounters(procs)
		for i := range cs.stripes {
			if a := uintptr(unsafe.Pointer(&cs.stripes[i])); a%64 != 0 {
				t.Fatalf("procs=%d: stripe %d at %#x; want 64-byte aligned", procs, i, a)
			}
		}
		const goroutines, each = 16, 10000
		var wg sync.WaitGroup
		for range goroutines {
			wg.Go(func() {
				for i := range each {
					cs.add(cCreated)
					if i%100 == 0 {
						runtime.Gosched() // move between Ps
					}
				}
			})
		}
		wg.Wait()
		if got := cs.snapshot().JobsCreated; got != goroutines*each {
			t.Errorf("procs=%d: JobsCreated = %d; want %d", procs, got, goroutines*each)
		}
	}
}
