package kc

import "testing"

// TestChanOwnNode checks the life of a channel's own wait node: the first
// blocked operation makes it, putOp brings only it home (a node made while
// it was out is left to the collector, so spare never holds a stranger),
// newOp takes it from home, and after dropOp (its last operation may still
// be touched by a cancel walk) the next blocked operation makes a new own
// node instead of allocating one every time.
func TestChanOwnNode(t *testing.T) {
	c, _ := NewChan[int](0)
	take := func() *chanOp[int] {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.newOp(nil, 0)
	}
	a, b := take(), take()
	if !a.own || b.own {
		t.Fatalf("own flags of the first two nodes: %v, %v; want true, false", a.own, b.own)
	}
	c.putOp(b)
	if got := c.spare.Load(); got != nil {
		t.Fatal("putOp of a node that is not the channel's own made it the spare")
	}
	c.putOp(a)
	if got := c.spare.Load(); got != a {
		t.Fatal("putOp of the own node did not bring it home")
	}
	if got := take(); got != a || c.spare.Load() != nil {
		t.Fatal("newOp did not take the own node from home")
	}
	c.dropOp(a)
	n := take()
	if !n.own || n == a {
		t.Fatalf("after dropOp: got own=%v, same node %v; want a new own node", n.own, n == a)
	}
	c.putOp(n)
	if got := c.spare.Load(); got != n {
		t.Fatal("the new own node did not come home")
	}
}
