package kc

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestWorkerPass: Worker.Pass moves a batch of releases of parent p to the
// Worker of a task that is an attached child of p and still running, which
// keeps p from ending meanwhile, and leaves p's hold count alone; to any
// other Worker (its task a child of another job, or detached, or it holds
// another parent's batch, or it runs no task) it flushes the batch instead.
// The batch's holds are two leases on p standing in for two children that
// ended.
func TestWorkerPass(t *testing.T) {
	rt := New(goExecutor())
	err := rt.Run(context.Background(), func(j *Job) error {
		p, err := j.Open()
		if err != nil {
			return err
		}
		other, err := j.Open()
		if err != nil {
			return err
		}
		sleep := func(c *Job) error { return c.Sleep(time.Hour) }
		child, err := p.Launch(sleep)
		if err != nil {
			return err
		}
		detached, err := p.Launch(sleep, Detached())
		if err != nil {
			return err
		}
		nephew, err := other.Launch(sleep)
		if err != nil {
			return err
		}
		holdsOf := func() uint64 { return holds(p.state.Load()) }
		// owe2 takes the two leases; on the body's goroutine a failure is
		// reported with Error (FailNow belongs to the test's goroutine).
		owe2 := func() *Worker {
			for range 2 {
				if _, err := p.Lease(); err != nil {
					t.Error(err)
				}
			}
			return &Worker{owed: p, n: 2}
		}
		base := holdsOf()

		w, dst := owe2(), &Worker{run: child}
		w.Pass(dst)
		if w.owed != nil || w.n != 0 || dst.owed != p || dst.n != 2 || holdsOf() != base+2 {
			t.Errorf("Pass to a child's Worker: w = {%p %d}, dst = {%p %d}, holds %d; want w empty, dst {p 2}, holds %d",
				w.owed, w.n, dst.owed, dst.n, holdsOf(), base+2)
		}
		w = owe2()
		w.Pass(dst) // dst holds p's batch already: the two merge
		if w.owed != nil || dst.owed != p || dst.n != 4 || holdsOf() != base+4 {
			t.Errorf("Pass onto the same parent's batch: dst = {%p %d}, holds %d; want {p 4}, holds %d", dst.owed, dst.n, holdsOf(), base+4)
		}
		dst.Flush()
		if holdsOf() != base {
			t.Errorf("after the passed batch's Flush: holds %d; want %d", holdsOf(), base)
		}

		for name, dst := range map[string]*Worker{
			"a task of another job":  {run: nephew},
			"a detached task":        {run: detached},
			"no task":                {},
			"another parent's batch": {run: child, owed: other, n: 0},
		} {
			w := owe2()
			w.Pass(dst)
			if w.owed != nil || w.n != 0 || dst.owed == p || holdsOf() != base {
				t.Errorf("Pass to the Worker of %s: w = {%p %d}, dst owes p: %v, holds %d; want a flush (holds %d)",
					name, w.owed, w.n, dst.owed == p, holdsOf(), base)
			}
		}
		p.Cancel(nil)
		other.Cancel(nil)
		detached.Cancel(nil)
		for _, n := range []*Job{p, other} {
			if err := n.AwaitAll(j); !errors.Is(err, ErrCancelled) {
				t.Errorf("AwaitAll = %v; want ErrCancelled", err)
			}
		}
		return detached.Join(j)
	})
	if !errors.Is(err, ErrCancelled) {
		t.Errorf("Run = %v; want the detached child's cancellation", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
}
