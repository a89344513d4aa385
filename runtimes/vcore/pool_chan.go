//go:build race

package vcore

// idle is an idle owner goroutine's hand-off point; in race builds a
// channel of capacity 1 (see pool_park.go for the other builds).
type idle struct{ ch chan ownerStart }

func newIdle() *idle { return &idle{ch: make(chan ownerStart, 1)} }

// arm does nothing: the channel needs no arming.
func (x *idle) arm() {}

// wait blocks until the hand, and returns what it handed; false: the
// pool closed.
func (x *idle) wait() (ownerStart, bool) {
	s, ok := <-x.ch
	return s, ok
}

// hand gives the goroutine waiting on x the owner s to start; capacity 1
// and one hand per wait, so it never blocks.
func (x *idle) hand(s ownerStart) { x.ch <- s }

// close makes the goroutine waiting on x end.
func (x *idle) close() { close(x.ch) }
