package kc

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// snapExecutor runs each task on a goroutine of its own (spinExecutor)
// and hands every wait off with Parker.Suspend to a Resumer that, before
// resuming the waiter, calls onResume on the waker's goroutine: what
// onResume sees is what the waker had done before the wake, exactly.
type snapExecutor struct {
	spinExecutor
	onResume func()
}

type snapResumer struct {
	e    *snapExecutor
	done chan struct{}
}

func (r *snapResumer) Resume() {
	if f := r.e.onResume; f != nil {
		f()
	}
	close(r.done)
}

func (e *snapExecutor) Park(p *Parker) {
	if p.Quick() {
		p.Wait()
		return
	}
	r := &snapResumer{e: e, done: make(chan struct{})}
	if p.Suspend(r) {
		<-r.done
		return
	}
	p.Wait()
}

// suspendedOn reports whether a wait is registered on j and handed off
// (Suspend), so that its wake will call the Resumer.
func suspendedOn(j *Job) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.waiters != nil && j.waiters.p.hand.Load() == handSuspended
}

// TestCountedBeforeParentWakes: a job that ends on the release of its last
// child (its body returned first; finish's lock-free path) is counted in
// Stats before it releases its parent, so that the parent's end, and the
// waiters that end wakes, find it counted. The Join of the parent nursery
// is woken by the child's release, on the child's finishing goroutine;
// the executor's Resumer takes a Stats snapshot there, which must count
// the grandchild, the child and the nursery Completed. No case of the
// suite can see a finish that counts the child after releasing the
// parent: the window is a few instructions for an observer on another
// goroutine.
func TestCountedBeforeParentWakes(t *testing.T) {
	ex := &snapExecutor{}
	rt := New(ex)
	defer rt.Close()
	var (
		mu    sync.Mutex
		snaps []Stats
		armed atomic.Bool
	)
	ex.onResume = func() {
		if armed.Load() {
			mu.Lock()
			snaps = append(snaps, rt.Stats())
			mu.Unlock()
		}
	}
	for round := range 50 {
		var before Stats
		err := rt.Run(context.Background(), func(j *Job) error {
			n, err := j.Open()
			if err != nil {
				return err
			}
			started, gate := make(chan struct{}), make(chan struct{})
			c, err := n.Launch(func(c *Job) error {
				_, err := c.Launch(func(*Job) error { close(started); <-gate; return nil })
				return err
			})
			if err != nil {
				return err
			}
			<-started
			for c.State() == Active {
				time.Sleep(10 * time.Microsecond)
			}
			n.Close()
			before = rt.Stats()
			mu.Lock()
			snaps = nil
			mu.Unlock()
			armed.Store(true)
			go func() {
				for !suspendedOn(n) {
					time.Sleep(10 * time.Microsecond)
				}
				close(gate)
			}()
			err = n.Join(j)
			armed.Store(false)
			return err
		})
		if err != nil {
			t.Fatalf("round %d: Run = %v", round, err)
		}
		mu.Lock()
		got := snaps
		mu.Unlock()
		if len(got) == 0 {
			t.Fatalf("round %d: the Join of the nursery was not resumed through the Resumer", round)
		}
		if d := got[0].JobsCompleted - before.JobsCompleted; d < 3 {
			t.Fatalf("round %d: JobsCompleted when the nursery's end woke its Join: +%d; want +3 (grandchild, child, nursery)", round, d)
		}
	}
}

// TestParentReleasedBeforeJoinWakes: a job releases its parent before it
// wakes its own waiters, so that a Join that blocked on the job's end
// returns with the job's hold on its parent gone: a WaitAll(0) of the
// parent right after the Join counts no such child. The snapExecutor's
// Resumer runs the WaitAll(0) on the ending child's goroutine at the very
// moment the Join is woken. The suite cannot see a finish that wakes the
// waiters first: a woken goroutine rarely gets to run before the waker's
// next statement.
func TestParentReleasedBeforeJoinWakes(t *testing.T) {
	ex := &snapExecutor{}
	rt := New(ex)
	defer rt.Close()
	var (
		nursery atomic.Pointer[Job]
		seen    = make(chan error, 1)
	)
	ex.onResume = func() {
		if n := nursery.Load(); n != nil {
			select {
			case seen <- n.WaitAll(0):
			default:
			}
		}
	}
	for round := range 50 {
		err := rt.Run(context.Background(), func(j *Job) error {
			n, err := j.Open()
			if err != nil {
				return err
			}
			gate := make(chan struct{})
			c, err := n.Launch(func(*Job) error { <-gate; return nil })
			if err != nil {
				return err
			}
			nursery.Store(n)
			go func() {
				for !suspendedOn(c) {
					time.Sleep(10 * time.Microsecond)
				}
				close(gate)
			}()
			err = c.Join(j)
			nursery.Store(nil)
			if err != nil {
				return err
			}
			return n.AwaitAll(j)
		})
		if err != nil {
			t.Fatalf("round %d: Run = %v", round, err)
		}
		select {
		case err := <-seen:
			if err != nil {
				t.Fatalf("round %d: WaitAll(0) of the parent when the Join of its only child was woken = %v; want nil (the child's hold released first)", round, err)
			}
		default:
			t.Fatalf("round %d: the Join was not resumed through the Resumer", round)
		}
	}
}

// TestEndedChildUnlinked: a listed child (one that had a child of its
// own, a hook or a Done channel) is taken off its parent's child list
// when it ends, so that a long-lived parent does not keep every child it
// ever listed: after many such children ended, the list is empty. Not
// visible through the API: the parent's walk skips terminal children.
func TestEndedChildUnlinked(t *testing.T) {
	rt := New(&spinExecutor{spin: func(*Parker) {}})
	defer rt.Close()
	err := rt.Run(context.Background(), func(j *Job) error {
		n, err := j.Open()
		if err != nil {
			return err
		}
		for range 20 {
			c, err := n.Launch(func(c *Job) error {
				<-c.Done() // lists c (a Done channel)
				return nil
			})
			if err != nil {
				return err
			}
			for c.state.Load()&bitListed == 0 {
				time.Sleep(10 * time.Microsecond)
			}
			c.Cancel(nil)
			if err := c.Join(j); err == nil {
				t.Errorf("Join of a cancelled child = nil; want the cancellation")
			}
		}
		n.mu.Lock()
		left := 0
		for c := n.head; c != nil; c = c.next {
			left++
		}
		n.mu.Unlock()
		if left != 0 {
			t.Errorf("children left on the nursery's list after all 20 ended: %d; want 0", left)
		}
		return n.AwaitAll(j)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWaitAllWakeRechecksHolds: the release that leaves a job with no
// holds wakes its WaitAll waiters only if, once it holds the job's lock,
// the job still has none: a hold added since its Add (a child attached)
// makes the waiters registered meanwhile wait for it. The test forces the
// interleaving the race needs: it holds the job's lock while the release's
// Add drops the last hold (the release then blocks on the lock), adds a
// hold (a lease, standing in for a child), and registers a WaitAll waiter
// as WaitAll does, under the lock; then it lets the release go on. The
// waiter must stay asleep until the new hold is released. No other test
// reaches the window, two consecutive statements.
func TestWaitAllWakeRechecksHolds(t *testing.T) {
	rt := New(goExecutor())
	defer rt.Close()
	err := rt.Run(context.Background(), func(j *Job) error {
		rel1, err := j.Lease()
		if err != nil {
			return err
		}
		j.state.Or(bitWaitAll) // as an earlier WaitAll leaves it, so the release locks
		j.mu.Lock()
		released := make(chan struct{})
		go func() { rel1(); close(released) }()
		for holds(j.state.Load()) != 0 {
			time.Sleep(10 * time.Microsecond)
		}
		rel2, err := j.Lease() // the hold "attached since the Add"
		if err != nil {
			j.mu.Unlock()
			return err
		}
		w := rt.newWaiter(waitChildren)
		w.p.init(false)
		j.state.Or(bitWaitAll | bitSlow)
		j.pushWaiterLocked(w)
		j.mu.Unlock()
		<-released
		if w.p.woken() {
			t.Errorf("WaitAll waiter registered after a new hold: woken by the release of the previous last hold; want it asleep until the new hold goes")
		}
		rel2()
		if !w.p.woken() {
			t.Errorf("WaitAll waiter: not woken by the release of the last hold")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStateString: String gives each state's name, and a value that is no
// State (a zero-value mistake, a corrupted word) prints as State(?)
// instead of panicking, at the first value past the last state too.
func TestStateString(t *testing.T) {
	for st, want := range map[State]string{Active: "Active", Closing: "Closing", Cancelling: "Cancelling",
		Completed: "Completed", Failed: "Failed", Cancelled: "Cancelled", Cancelled + 1: "State(?)", 255: "State(?)"} {
		var got string
		func() {
			defer func() {
				if r := recover(); r != nil {
					got = "panic"
				}
			}()
			got = st.String()
		}()
		if got != want {
			t.Errorf("State(%d).String() = %q; want %q", uint8(st), got, want)
		}
	}
}
