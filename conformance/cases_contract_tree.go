package conformance

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// More of contractCases (cases_contract.go): select, shields, waits, actors,
// leases, pools.

// Select, and TrySelect, choose at random among ready cases: each of two
// always-ready cases is chosen a fair share of the time.
func selectFairness(_ *kc.Runtime, p *probe) {
	const rounds, least = 400, 60 // P(a fair choice below 60 of 400) < 1e-40
	a, _ := kc.NewChan[int](1)
	b, _ := kc.NewChan[int](1)
	for _, try := range []bool{false, true} {
		var counts [2]int
		for range rounds {
			a.TrySend(1)
			b.TrySend(2)
			var x, y int
			var i int
			var err error
			if try {
				i, err = kc.TrySelect(a.RecvCase(&x), b.RecvCase(&y))
			} else {
				i, err = kc.Select(nil, a.RecvCase(&x), b.RecvCase(&y))
			}
			if !p.noErr("Select of two ready cases", err) || i < 0 || i > 1 {
				return
			}
			counts[i]++
		}
		what := "Select"
		if try {
			what = "TrySelect"
		}
		p.check(counts[0] >= least && counts[1] >= least,
			"%s of two ready cases, %d times: got them chosen %d and %d times; want each chosen at random (at least %d)", what, rounds, counts[0], counts[1], least)
	}
}

// A Shield left by a panic, which the body recovers, is left all the same:
// the cancellation that arrived inside is seen, and the deferred walk runs.
func shieldBodyPanics(rt *kc.Runtime, p *probe) {
	var sp *shieldProbe
	c, err := inChild(rt, p, func(c *kc.Job) error {
		sp = newShieldProbe(p, c)
		var recovered any
		func() {
			defer func() { recovered = recover() }()
			c.Shield(func() error {
				c.Cancel(errCause)
				panic("shield body")
			})
		}()
		eq(p, "panic recovered from the Shield body", recovered, any("shield body"))
		sp.walked(p, c, "after a Shield left by a recovered panic")
		if sp.kid != nil && !sp.kid.IsCancelled() {
			sp.kid.Cancel(nil) // the walk did not run: end the child, so that the case ends
			return kc.ErrCancelled
		}
		return c.Check()
	})
	p.is("Join", err, kc.ErrCancelled, errCause)
	p.state("job", c, kc.Cancelled)
	if sp != nil {
		sp.ran(p, "once the job is terminal")
	}
}

// Inside a Shield, a cancelled job's Yield, Join, Await and channel
// operations go on as if it were not cancelled.
func shieldHidesCancelFromWaits(rt *kc.Runtime, p *probe) {
	c, err := inChild(rt, p, func(c *kc.Job) error {
		started, gate := make(chan struct{}), make(chan struct{})
		k, err := c.Launch(func(*kc.Job) error { close(started); <-gate; return nil })
		if !p.job("Launch", k, err) {
			return nil
		}
		d, err := kc.Async(c, func(*kc.Job) (int, error) { <-gate; return 7, nil })
		if !p.noErr("Async", err) {
			close(gate)
			return nil
		}
		<-started
		ch, _ := kc.NewChan[int](1)
		err = c.Shield(func() error {
			p.check(c.Cancel(errCause), "Cancel inside Shield: got false; want true")
			p.noErr("Yield inside Shield after Cancel", c.Yield())
			p.noErr("Send inside Shield after Cancel", ch.Send(c, 1))
			v, err := ch.Recv(c)
			p.noErr("Recv inside Shield after Cancel", err)
			eq(p, "value received inside Shield", v, 1)
			var got int
			i, err := kc.Select(c, ch.SendCase(2))
			p.check(i == 0 && err == nil, "Select inside Shield after Cancel: got (%d, %v); want (0, nil)", i, err)
			i, err = kc.Select(c, ch.RecvCase(&got))
			p.check(i == 0 && err == nil && got == 2, "Select inside Shield after Cancel: got (%d, %v), value %d; want (0, nil), 2", i, err, got)
			before := rt.Stats().WaitersRegistered
			go func() {
				p.waitUntil("the Join inside Shield to register", func() bool { return rt.Stats().WaitersRegistered > before })
				close(gate)
			}()
			p.noErr("Join inside Shield after Cancel", k.Join(c))
			v, err = d.Await(c)
			p.check(v == 7 && err == nil, "Await inside Shield after Cancel: got (%v, %v); want (7, nil)", v, err)
			return nil
		})
		p.noErr("Shield", err)
		p.is("Check after Shield", c.Check(), kc.ErrCancelled, errCause)
		return c.Check()
	})
	p.is("Join", err, kc.ErrCancelled, errCause)
	p.state("job", c, kc.Cancelled)
}

// Await returns only once the deferred's job is terminal: after its body
// returned a value, it still waits for the deferred's children.
func awaitWaitsForChildren(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		p.awaitRunWaiter(rt)
		gate := make(chan struct{})
		var kid *kc.Job
		d, err := kc.Async(j, func(c *kc.Job) (int, error) {
			var err error
			kid, err = c.Launch(func(*kc.Job) error { <-gate; return nil })
			return 42, err
		})
		if !p.noErr("Async", err) {
			close(gate)
			return nil
		}
		if !p.waitUntil("the deferred's body to return", func() bool { return d.State() == kc.Closing }) {
			close(gate)
			return nil
		}
		before := rt.Stats().WaitersRegistered
		type res struct {
			v   int
			err error
		}
		out := make(chan res, 1)
		go func() { v, err := d.Await(nil); out <- res{v, err} }()
		p.waitUntil("the Await to return or register", func() bool {
			return len(out) > 0 || rt.Stats().WaitersRegistered > before
		})
		select {
		case r := <-out:
			p.failf("Await of a deferred whose body returned and whose child runs: got (%v, %v) before the child ended; want it to wait", r.v, r.err)
			close(gate)
			return nil
		default:
		}
		close(gate)
		r := <-out
		p.check(r.v == 42 && r.err == nil, "Await: got (%v, %v); want (42, nil)", r.v, r.err)
		p.state("deferred's child when Await returned", kid, kc.Completed)
		p.state("deferred when Await returned", d.Job(), kc.Completed)
		return nil
	}))
}

// An actor cancelled while it handles a message handles none of those
// still in its mailbox, and ends Cancelled.
func actorStopsWhenCancelled(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			var handled atomic.Int32
			inHandler, gate := make(chan struct{}), make(chan struct{})
			a, err := kc.NewActor(s, 8, func(_ *kc.Job, m int) error {
				if handled.Add(1) == 1 {
					close(inHandler)
					<-gate
				}
				return nil
			})
			if !p.noErr("NewActor", err) {
				return nil
			}
			for i := range 5 {
				if !p.noErr("Send", a.Send(s, i)) {
					close(gate)
					return nil
				}
			}
			<-inHandler
			p.check(a.Job().Cancel(errCause), "Cancel of the actor: got false; want true")
			close(gate)
			p.is("Join of the cancelled actor", a.Job().Join(s), kc.ErrCancelled, errCause)
			eq(p, "messages handled (one was being handled when the actor was cancelled)", handled.Load(), int32(1))
			p.is("Send to the cancelled actor", a.TrySend(9), kc.ErrClosed)
			return nil
		})
	}))
}

// WithTimeout with a duration that is not positive skips its body and
// returns a timeout.
func withTimeoutNonPositive(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		for _, d := range []time.Duration{0, -time.Second} {
			ran := false
			err := j.WithTimeout(d, func(*kc.Job) error { ran = true; return nil })
			p.is("WithTimeout("+d.String()+")", err, kc.ErrTimeout)
			p.check(!ran, "WithTimeout(%v): got its body run; want it skipped", d)
		}
		p.check(!j.IsCancelled(), "parent after WithTimeout(0): got IsCancelled true; want false")
		return nil
	}))
}

// A detached child is left alone by the cancel walk of a parent that also
// has attached children (whose walk goes down, unlike a leaf's).
func detachedBesideAttached(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		type kids struct{ att, det *kc.Job }
		ch := make(chan kids, 1)
		parent, err := j.Launch(func(pj *kc.Job) error {
			att, err1 := pj.Launch(sleeper)
			det, err2 := pj.Launch(sleeper, kc.Detached())
			p.job("Launch attached", att, err1)
			p.job("Launch Detached()", det, err2)
			ch <- kids{att, det}
			return pj.Sleep(time.Hour)
		})
		if !p.job("Launch", parent, err) {
			return nil
		}
		k := <-ch
		if k.att == nil || k.det == nil {
			parent.Cancel(nil)
			return nil
		}
		p.check(parent.Cancel(nil), "Cancel of the parent: got false; want true")
		p.is("parent Join", parent.Join(j), kc.ErrCancelled)
		p.state("attached child", k.att, kc.Cancelled)
		p.check(!k.det.IsCancelled(), "detached child of a cancelled parent with attached children: got IsCancelled true; want false")
		p.noErr("detached child's Check", k.det.Check())
		p.state("detached child", k.det, kc.Active)
		p.check(k.det.Cancel(errCause), "Cancel of the detached child: got false; want true")
		p.is("detached child Join", k.det.Join(j), kc.ErrCancelled, errCause)
		return nil
	}))
}

// Releasing a lease twice drops one hold, not two: the job still waits for
// its running child.
func leaseReleaseTwice(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		gate := make(chan struct{})
		k, err := n.Launch(func(*kc.Job) error { <-gate; return nil })
		if !p.job("Launch", k, err) {
			return
		}
		release, err := n.Lease()
		if !p.noErr("Lease", err) {
			close(gate)
			return
		}
		release()
		release()
		p.is("WaitAll(0) with a running child", n.WaitAll(0), kc.ErrAgain)
		n.Close()
		p.state("closed nursery with a running child, after a double release", n, kc.Closing)
		_, done := n.TryResult()
		p.check(!done, "TryResult with a running child: got done; want pending")
		close(gate)
		p.noErr("AwaitAll", n.AwaitAll(w))
		p.state("child when AwaitAll returned", k, kc.Completed)
	})
}

// A create hook that panics fails the Get's job with the panic and gives
// the place back: the next Get creates an item.
func poolCreatePanics(rt *kc.Runtime, p *probe) {
	var calls atomic.Int32
	pool, err := kc.NewPool(1, func() (*int, error) {
		if calls.Add(1) == 1 {
			panic("create")
		}
		return new(int), nil
	}, nil)
	if !p.noErr("NewPool", err) {
		return
	}
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			c, err := s.Launch(func(c *kc.Job) error { _, err := pool.Get(c); return err })
			if p.job("Launch", c, err) {
				p.panicErr("Join of a Get whose create panicked", c.Join(s), "create")
			}
			stop := p.deadman("Get after a create panicked", func() { s.Cancel(nil) })
			v, err := pool.Get(s)
			stop()
			p.noErr("Get after a create panicked", err)
			p.check(v != nil, "Get after a create panicked: got no item; want a new one")
			eq(p, "items created", pool.Created(), 1)
			eq(p, "create calls", calls.Load(), int32(2))
			return nil
		})
	}))
}

// A stop called from the OnCancel callback of a child that the nursery's
// cancel walk cancelled (callbacks run on the executor, so it runs about
// when the walk, or the task it hands them to, gets to the nursery's own
// callbacks) reports exactly what happened: true and the callback never
// runs, or false and it has run once. OnCancelStopDuringWalk races a stop
// against the walk itself.
func onCancelStopRacesCancel(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		for round := range 20 {
			n, err := j.Open()
			if !p.job("Open", n, err) {
				return nil
			}
			c, err := n.Launch(sleeper)
			if !p.job("Launch", c, err) {
				return nil
			}
			inWalk, stopped := make(chan struct{}), make(chan struct{})
			c.OnCancel(func() { close(inWalk); <-stopped }) // runs once n's walk has cancelled c
			var calls atomic.Int32
			stop := n.OnCancel(func() { calls.Add(1) })
			res := make(chan bool, 1)
			go func() {
				<-inWalk
				res <- stop()
				close(stopped)
			}()
			n.Cancel(nil)
			s := <-res
			p.is("AwaitAll", n.AwaitAll(j), kc.ErrCancelled)
			if !stopAgrees(p, fmt.Sprintf("round %d: stop during the cancel walk", round), s, calls.Load()) {
				return nil
			}
		}
		return nil
	}))
}

// stopAgrees checks that an OnCancel stop that raced a cancellation
// reported what happened: true and the callback never ran, or false and it
// ran once.
func stopAgrees(p *probe, what string, stopped bool, calls int32) bool {
	if stopped && calls != 0 || !stopped && calls != 1 {
		return p.failf("%s returned %v and the callback ran %d times; want (true, 0) or (false, 1)", what, stopped, calls)
	}
	return true
}

// earlyWakeRounds is how many waits EarlyWake makes of each kind.
const earlyWakeRounds = 2000

// earlyWakeBudget is how long EarlyWake repeats its waits (at least once):
// a wake lands before Park in a small fraction of them.
const earlyWakeBudget = 500 * time.Millisecond
