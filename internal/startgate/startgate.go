// Package startgate orders an executor's goroutine starts against its
// Close. A start may come from a goroutine the executor does not count in
// its WaitGroup (the caller of Run, a goroutine a task body started, a
// waker whose task has ended since), so Close may be under way: its
// wg.Add could then come after Close's wg.Wait, and the goroutine would
// outlive Close (or the WaitGroup would panic on misuse).
//
// A Gate brackets the start's check of the executor's closed flag and its
// wg.Add; Close sets the flag, then waits for the bracket to be empty
// (Drain), then waits on the WaitGroup. The two sides are a Dekker pair
// over Go's sequentially consistent atomics: a start that loaded the flag
// false had already entered the bracket, which Drain sees; otherwise it
// sees the flag true and starts nothing.
package startgate

import (
	"runtime"
	"sync/atomic"
)

// Gate is the bracket. Its zero value is ready to use.
type Gate struct {
	n atomic.Int32 // starts between Begin and End
}

// Begin enters the bracket and reports whether the start may go on: false
// if closed is set, and then the caller starts nothing (and need not call
// End). On true the caller does its wg.Add, then calls End.
func (g *Gate) Begin(closed *atomic.Bool) bool {
	g.n.Add(1)
	if closed.Load() {
		g.n.Add(-1)
		return false
	}
	return true
}

// End leaves the bracket, after the start's wg.Add.
func (g *Gate) End() { g.n.Add(-1) }

// Drain returns once no start is in the bracket. Close calls it after it
// set the closed flag and before it waits on its WaitGroup; it yields
// while it waits, for the few instructions a bracket lasts.
func (g *Gate) Drain() {
	for g.n.Load() != 0 {
		runtime.Gosched()
	}
}
