//go:build !race

package vcore

import (
	"sync/atomic"
	"unsafe"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// idle is an idle owner goroutine's hand-off point: the goroutine parks
// itself (goruntime.Park), and the hand that gives it an owner to start
// readies it (goruntime.Ready). Against a channel of capacity 1 this saves
// the channel's lock and the sudog on both sides, at every hand-off of a
// core in Park and every retirement of a woken task's goroutine. Race
// builds use a channel (pool_chan.go): goruntime.Park's commit may not
// call into the race runtime.
//
// Only the goroutine arms it and waits on it; only the winner of get (or
// close, under the pool's mutex) hands to it, once per arm. s and ok are
// written by the hand before its Swap publishes them, and read by the
// goroutine after it has seen idleHanded (its commit's failed CAS, or the
// Ready that follows the Swap).
type idle struct {
	state atomic.Uint32 // an idleState
	g     uintptr       // the parked goroutine; written by commitIdle before its CAS
	s     ownerStart    // the owner to start; see above
	ok    bool          // false: the pool closed, the goroutine ends
}

// idleState is where an idle goroutine is in one wait.
type idleState = uint32

const (
	// idleArmed: the goroutine is in the pool or on its way to park.
	// Moves to idleParked (commitIdle) or idleHanded (the hand came first:
	// the commit then fails and the goroutine goes on at once).
	idleArmed idleState = iota
	// idleParked: parked, g names it. Moves to idleHanded (the hand,
	// which then readies g).
	idleParked
	// idleHanded: s and ok are set. The goroutine takes them and arms
	// again before it next enters the pool.
	idleHanded
)

func newIdle() *idle { return new(idle) }

// arm readies x for one wait; put calls it, under the pool's mutex,
// before it makes x reachable (the mutex then orders it before any hand).
func (x *idle) arm() { x.state.Store(idleArmed) }

// wait blocks until the hand, and returns what it handed.
func (x *idle) wait() (ownerStart, bool) {
	goruntime.Park(commitIdle, unsafe.Pointer(x))
	return x.s, x.ok
}

// commitIdle publishes the parked goroutine g, or reports false if the
// hand came first (see goruntime.Park for what it may not do).
//
//go:nosplit
func commitIdle(g uintptr, arg unsafe.Pointer) bool {
	x := (*idle)(arg)
	x.g = g
	return x.state.CompareAndSwap(idleArmed, idleParked)
}

// hand gives the goroutine waiting on x the owner s to start. It never
// blocks.
func (x *idle) hand(s ownerStart) { x.give(s, true) }

// close makes the goroutine waiting on x end.
func (x *idle) close() { x.give(ownerStart{}, false) }

func (x *idle) give(s ownerStart, ok bool) {
	x.s, x.ok = s, ok
	if x.state.Swap(idleHanded) == idleParked {
		goruntime.Ready(x.g) // published by commitIdle's CAS, which the Swap read
	}
}
