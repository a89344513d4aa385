package kc_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// The races below are swept for a fixed time, with the two sides'
// alignment shifted by a spin of varying length between rounds.
const edgeSweep = 2 * time.Second

var edgeSpin atomic.Int64

func spinFor(n int) {
	for range n {
		edgeSpin.Add(1)
	}
}

// returnsWithin runs f on a goroutine and reports whether it returned
// within d.
func returnsWithin(d time.Duration, f func()) bool {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// TestShieldEntryRacingCancel: a Cancel that lands while the body enters
// Shield either makes Shield refuse (the cancellation error, body not run)
// or is deferred to the shield's exit; it never runs its walk before the
// shield is up and lets the body run as if uncancelled. Before Shield
// looked again under the job's lock, a child launched inside such a shield
// was reached by no walk, and the job stayed Cancelling for ever.
func TestShieldEntryRacingCancel(t *testing.T) {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	deadline := time.Now().Add(edgeSweep)
	err := rt.Run(context.Background(), func(root *kc.Job) error {
		for i := 0; time.Now().Before(deadline); i++ {
			var gate atomic.Bool
			var inner error
			var g *kc.Job
			c, err := root.Launch(func(c *kc.Job) error {
				testutil.SpinUntil(&gate)
				return c.Shield(func() error {
					inner = c.Err()
					g, _ = c.Launch(func(g *kc.Job) error { return g.Sleep(time.Hour) })
					return nil
				})
			})
			if err != nil {
				return err
			}
			gate.Store(true)
			spinFor(i % 64)
			c.Cancel(nil)
			if !returnsWithin(5*time.Second, func() { c.Join(nil) }) {
				t.Errorf("round %d: job cancelled as it entered Shield still %v after 5s; the child launched in the shield is %v", i, c.State(), g.State())
				g.Cancel(nil)
				c.Join(nil)
				return nil
			}
			if inner != nil {
				t.Errorf("round %d: Shield ran its body with Err() = %v inside (the walk ran before the shield was up)", i, inner)
				return nil
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLaunchRefusedAfterLazyParentCancel: once Cancel of P has returned,
// a Launch into P's child c is refused with ErrCancelled, also while
// another goroutine is listing c (here through Done), which cancels c
// only after it has marked it listed.
func TestLaunchRefusedAfterLazyParentCancel(t *testing.T) {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	var ran atomic.Int32
	deadline := time.Now().Add(edgeSweep)
	err := rt.Run(context.Background(), func(root *kc.Job) error {
		for i := 0; time.Now().Before(deadline); i++ {
			block := make(chan struct{})
			cc := make(chan *kc.Job, 1)
			p, err := root.Launch(func(p *kc.Job) error {
				c, _ := p.Launch(func(*kc.Job) error { <-block; return nil })
				cc <- c
				<-block
				return nil
			})
			if err != nil {
				return err
			}
			c := <-cc
			p.Cancel(nil) // c is not listed: it learns of this through p's down flag
			var stop atomic.Bool
			hammered := make(chan struct{})
			go func() { // holds c's lock now and then, widening list's window
				defer close(hammered)
				for !stop.Load() {
					c.Name()
				}
			}()
			listed := make(chan struct{})
			var started atomic.Bool
			go func() { defer close(listed); started.Store(true); c.Done() }()
			for !started.Load() {
			}
			spinFor(i % 128)
			var accepted int
			for range 1000 {
				if _, err := c.Launch(func(*kc.Job) error { ran.Add(1); return nil }); err == nil {
					accepted++
				} else if !errors.Is(err, kc.ErrCancelled) {
					t.Errorf("round %d: Launch into c: got %v; want ErrCancelled", i, err)
				}
			}
			<-listed
			stop.Store(true)
			<-hammered
			close(block)
			p.Join(nil)
			if accepted > 0 {
				t.Errorf("round %d: %d Launches into c accepted after Cancel of its parent had returned", i, accepted)
				return nil
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("%d bodies launched into a cancelled job ran", n)
	}
}

// TestShieldNilBody: Shield refuses a nil body with ErrNilBody, as Launch
// and Scope do, instead of panicking.
func TestShieldNilBody(t *testing.T) {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		if err := j.Shield(nil); !errors.Is(err, kc.ErrNilBody) {
			t.Errorf("Shield(nil): got %v; want ErrNilBody", err)
		}
		return nil
	})
	if err != nil {
		t.Errorf("Run: %v", err)
	}
}
