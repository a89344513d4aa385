package stealing

import (
	"runtime"
	"testing"
)

// A listed chain whose rest the taker cannot park in its own P's ready
// slot (the fairness tick takes the list while the slot's chain runs)
// gives the rest back where it was, at the list's front: the list stays in
// wake order, and the rest does not run after every chain listed since.
func TestListedRestKeepsItsPlace(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	e := bareExecutor(1)
	e.sched.running.Store(1) // one worker runs, at the target: wake starts none
	var x [3]*coro           // the oldest listed chain, x[0] its head
	for i := range x {
		x[i] = &coro{}
	}
	for i := range x {
		if i+1 < len(x) {
			x[i].setRnext(x[i+1])
		}
		x[i].n.Store(int32(len(x) - i)) // n below a chain's head is exact
	}
	y := &coro{} // a chain listed after x
	y.n.Store(1)
	e.readyQ.push(x[0])
	e.readyQ.push(y)
	e.readies[0].c.Store(&coro{}) // the P's own chain still runs
	if r := e.takeReadyList(); r != x[0] {
		t.Fatalf("takeReadyList took %p; want the oldest chain's head %p", r, x[0])
	}
	if r := e.readyQ.pop(); r != x[1] {
		t.Fatalf("the list's next chain is headed by %p; want the rest of the oldest chain, %p (the later chain is %p)", r, x[1], y)
	}
	if r := e.readyQ.pop(); r != y {
		t.Fatalf("the list's last chain is headed by %p; want the later chain %p", r, y)
	}
	if r := e.readyQ.pop(); r != nil {
		t.Fatalf("the list still holds %p", r)
	}
}
