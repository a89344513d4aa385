package vcore

import (
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// yieldRows counts a run of Yields by one goroutine, each soon after the
// one before, up to osYieldAfter+1 (from which Yield calls OSYield), and
// starts a new row after a pause longer than pollGap or for another
// goroutine. A count that never grew would never give the thread up; one
// that never started again would make every later Yield of a goroutine
// that once polled pay a system call.
func TestYieldRowsCount(t *testing.T) {
	var zero yieldRows
	if n := zero.inRow(); n != 1 {
		t.Errorf("zero yieldRows: inRow = %d; want 1", n)
	}
	var r yieldRows
	r.init(1) // one slot, whatever P the test runs on
	// A tight loop of calls: some run of osYieldAfter+1 of them comes
	// pollGap apart or less (a preemption in between starts the row over).
	top := uint32(0)
	for range 100000 {
		if top = max(top, r.inRow()); top == osYieldAfter+1 {
			break
		}
	}
	if top != osYieldAfter+1 {
		t.Fatalf("longest row of back-to-back Yields = %d; want %d", top, osYieldAfter+1)
	}
	time.Sleep(10 * pollGap)
	if n := r.inRow(); n != 1 {
		t.Errorf("first Yield after a %v pause: row of %d; want 1 (a new row)", 10*pollGap, n)
	}
	if !goruntime.GOK {
		return // goroutines have no identity: they share a P's row
	}
	// Another goroutine's row of 5, its last Yield just now: the caller's
	// Yield starts a row of its own. (Should the store and the call come
	// more than pollGap apart, the row starts over anyway.)
	s := &r.slots[0]
	s.g.Store(goruntime.G() + 1)
	s.n.Store(5)
	s.at.Store(int64(time.Since(epoch)))
	if n := r.inRow(); n != 1 {
		t.Errorf("first Yield of a goroutine just after another's: row of %d; want 1", n)
	}
}
