package kc

import "testing"

// TestChanOwnNodes checks the life of a channel's own wait nodes: the
// first ownNodes blocked operations make them, putOp brings only them home
// (a node made while all were out is left to the collector, so a spare
// slot never holds a stranger), newOp takes them from home, and after
// dropOp (its last operation may still be touched by a cancel walk) a
// later blocked operation makes a new own node in its place instead of
// allocating one every time.
func TestChanOwnNodes(t *testing.T) {
	c, _ := NewChan[int](0)
	take := func() *chanOp[int] {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.newOp(nil, 0)
	}
	home := func() (n int) {
		for i := range c.spare {
			if c.spare[i].Load() != nil {
				n++
			}
		}
		return n
	}
	var own [ownNodes]*chanOp[int]
	for i := range own {
		if own[i] = take(); own[i].home < 0 {
			t.Fatalf("blocked operation %d: not an own node", i)
		}
	}
	stranger := take()
	if stranger.home >= 0 {
		t.Fatalf("node made with every own node out: home %d; want none", stranger.home)
	}
	c.putOp(stranger)
	if home() != 0 {
		t.Fatal("putOp of a node that is not the channel's own made it a spare")
	}
	for _, op := range own {
		c.putOp(op)
	}
	if home() != ownNodes {
		t.Fatalf("%d own nodes at home after putOp; want %d", home(), ownNodes)
	}
	a := take()
	if a != own[0] && a != own[1] {
		t.Fatal("newOp did not take an own node from home")
	}
	c.dropOp(a)
	b := take() // the other own node, at home
	n := take() // a new own node in a's place
	if n.home != a.home || n == a || b == a {
		t.Fatalf("after dropOp: got home %d (same node %v); want a new own node of home %d", n.home, n == a, a.home)
	}
	c.putOp(n)
	c.putOp(b)
	if home() != ownNodes {
		t.Fatal("the new own node did not come home")
	}
}
