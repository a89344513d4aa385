package startgate

import (
	"sync/atomic"
	"testing"
	"time"
)

// Drain waits for a start that passed Begin before the flag was set, and
// Begin lets nothing through once it is set.
func TestGate(t *testing.T) {
	var (
		g      Gate
		closed atomic.Bool
	)
	if !g.Begin(&closed) {
		t.Fatal("Begin refused a start while the flag was clear")
	}
	drained := make(chan struct{})
	go func() { closed.Store(true); g.Drain(); close(drained) }()
	select {
	case <-drained:
		t.Fatal("Drain returned while a start was between Begin and End")
	case <-time.After(50 * time.Millisecond):
	}
	if g.Begin(&closed) {
		t.Error("Begin let a start through after the flag was set")
	}
	g.End()
	select {
	case <-drained:
	case <-time.After(5 * time.Second):
		t.Fatal("Drain did not return after End")
	}
}
