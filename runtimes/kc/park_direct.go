//go:build !race

package kc

import (
	"unsafe"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// directPark tells whether Parker.Wait parks the goroutine itself
// (goruntime.Park, the runtime's gopark) instead of blocking on the
// Parker's WaitGroup. It does outside race builds: a channel-like park
// and ready cost one goroutine switch each way and no lock, where the
// WaitGroup takes a semaphore table lock on both sides. Race builds keep
// the WaitGroup, whose happens-before edges the detector knows, because
// parkCommit's atomics would call into the race runtime on the system
// stack, which has no race context.
const directPark = true

// parkDirect parks the caller until signal readies it (see handoff.go for
// the states). parkCommit publishes the parked goroutine, or refuses to
// park if the wake has already been decided.
func (p *Parker) parkDirect() {
	if p.hand.Load() == handSignalled {
		return
	}
	goruntime.Park(parkCommit, unsafe.Pointer(p))
}

// parkCommit runs on the system stack once the waiting goroutine g is
// marked waiting. It records g, then moves the hand-off word from
// handWaiting to handParked: the CAS publishes g to signal, whose swap
// reads it. If the CAS fails, signal has already swapped in handSignalled
// and will not ready anyone, so the goroutine must go on at once (return
// false). No stack growth, allocation or race instrumentation here (see
// goruntime.Park); in non-race builds the CAS compiles to one instruction.
//
//go:nosplit
func parkCommit(g uintptr, arg unsafe.Pointer) bool {
	p := (*Parker)(arg)
	p.g = g
	return p.hand.CompareAndSwap(handWaiting, handParked)
}

// parkSema is empty outside race builds: Wait parks through the hand-off
// word, and directPark keeps every call below from being reached.
type parkSema struct{}

func (parkSema) Add(int) { panic("kc: parkSema.Add outside a race build") }
func (parkSema) Done()   { panic("kc: parkSema.Done outside a race build") }
func (parkSema) Wait()   { panic("kc: parkSema.Wait outside a race build") }
