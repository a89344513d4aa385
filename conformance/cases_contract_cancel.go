package conformance

import (
	"errors"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// finishRaceRounds bounds OnCancelWhenCancelMeetsFinish: it stops at this
// many rounds or after finishRaceBudget, whichever comes first. On a quiet
// machine the rounds end it (a few ms; vcore, whose threads the spinning
// canceller competes with, takes the budget); on a loaded one the budget
// gives the two sides time to meet.
const (
	finishRaceRounds = 400
	finishRaceBudget = time.Second
)

// finishRaceSpin is what OnCancelWhenCancelMeetsFinish spins on to shift
// the release against the Cancel.
var finishRaceSpin atomic.Int64

// A Cancel that lands as the job's last Lease is released (the job's body
// has returned, so the release makes it finish) either finds the job
// already ended (Cancel returns false, the job Completed, the callback
// never runs) or cancels it: then the job ends Cancelled and its OnCancel
// callback has run once, before the job was terminal. The two sides start
// together, with their alignment shifted from round to round.
func onCancelWhenCancelMeetsFinish(rt *kc.Runtime, p *probe) {
	cause := errors.New("cause")
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		deadline := time.Now().Add(finishRaceBudget)
		for round := 0; round < finishRaceRounds && (round == 0 || time.Now().Before(deadline)); round++ {
			var calls, late atomic.Int32
			var release func()
			c, err := j.Launch(func(c *kc.Job) error {
				var err error
				if release, err = c.Lease(); err != nil {
					return err
				}
				c.OnCancel(func() {
					calls.Add(1)
					if c.State().Terminal() {
						late.Add(1)
					}
				})
				return nil
			})
			if !p.job("Launch", c, err) {
				return nil
			}
			if !p.waitUntil("the body's end", func() bool { return c.State() != kc.Active }) {
				return nil
			}
			// The canceller spins (it does not yield) so that it runs
			// beside the release, not before or after it.
			var gate, spinning atomic.Bool
			moved := make(chan bool, 1)
			go func() {
				spinning.Store(true)
				for !gate.Load() {
				}
				moved <- c.Cancel(cause)
			}()
			for !spinning.Load() {
				runtime.Gosched()
			}
			gate.Store(true)
			for range round % 64 {
				finishRaceSpin.Add(1)
			}
			release()
			m := <-moved
			c.Join(nil)
			st, n := c.State(), calls.Load()
			switch {
			case st == kc.Cancelled && (n != 1 || late.Load() != 0):
				p.failf("round %d: job ended Cancelled (Cancel returned %v) with its OnCancel callback run %d times, %d after it was terminal; want once, before", round, m, n, late.Load())
			case st == kc.Completed && (m || n != 0):
				p.failf("round %d: job ended Completed, Cancel returned %v, callback run %d times; want false, 0", round, m, n)
			case st != kc.Cancelled && st != kc.Completed:
				p.failf("round %d: job ended %v; want Cancelled or Completed", round, st)
			default:
				continue
			}
			return nil
		}
		return nil
	}))
}

// An OnCancel callback run at once, because the job is already cancelled,
// runs on the caller, and a panic in it reaches the caller: called from a
// body, it fails the body's job with a *PanicError (DESIGN Panics), as any
// panic in a body does; it is not swallowed.
func onCancelPanicAtOnce(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			c, err := s.Launch(func(c *kc.Job) error {
				c.Cancel(nil)
				c.OnCancel(func() { panic("at once") })
				return nil
			})
			if p.job("Launch", c, err) {
				c.Join(nil)
				if p.state("child whose OnCancel callback panicked at once", c, kc.Failed) {
					p.panicErr("its Result", c.Result(), "at once")
				}
			}
			return nil
		})
	}))
}

// An OnCancel callback that a cancel walk runs and that calls
// runtime.Goexit ends the goroutine it runs on, and nothing else: the
// job's other callbacks still run, once each, the job fails with an error
// matching ErrGoexit, and the runtime goes on (the suite's Close of it
// must return too).
func onCancelGoexit(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			var others atomic.Int32
			registered := make(chan struct{})
			c, err := s.Launch(func(c *kc.Job) error {
				c.OnCancel(func() { others.Add(1) })
				c.OnCancel(runtime.Goexit)
				c.OnCancel(func() { others.Add(1) })
				close(registered)
				return c.Sleep(time.Hour)
			})
			if !p.job("Launch", c, err) {
				return nil
			}
			<-registered
			p.check(c.Cancel(nil), "Cancel: got false; want true")
			stop := p.deadman("Join of a job whose OnCancel callback called Goexit", func() { s.Cancel(nil) })
			err = c.Join(s)
			stop()
			p.is("Join of a job whose OnCancel callback called Goexit", err, kc.ErrGoexit)
			p.state("job", c, kc.Failed)
			eq(p, "calls of the job's other OnCancel callbacks", others.Load(), int32(2))
			p.stillWorks(s, "the Goexit")
			return nil
		})
	}))
}

// A cancel walk runs no OnCancel callback on the cancelling goroutine, so
// a callback may wait for something that Cancel's caller holds (here, a
// channel standing for a lock) until Cancel has returned: the callbacks of
// the cancelled job and of its child run on the executor, before each job
// is terminal.
func onCancelOffCanceller(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		held := make(chan struct{}) // closed when the canceller lets go
		var calls atomic.Int32
		hook := func() { <-held; calls.Add(1) }
		registered := make(chan struct{})
		c, err := j.Launch(func(c *kc.Job) error {
			c.OnCancel(hook)
			g, err := c.Launch(func(g *kc.Job) error { return g.Sleep(time.Hour) })
			if err != nil {
				close(registered)
				return err
			}
			g.OnCancel(hook)
			close(registered)
			return c.Sleep(time.Hour)
		})
		if !p.job("Launch", c, err) {
			return nil
		}
		<-registered
		returned := make(chan bool, 1)
		go func() { returned <- c.Cancel(nil) }()
		select {
		case moved := <-returned:
			p.check(moved, "Cancel: got false; want true")
		case <-time.After(stallBound):
			p.failf("Cancel, with a callback waiting for the canceller: got no return after %v; want it to return (callbacks run on the executor)", stallBound)
		}
		close(held)
		p.is("Join", c.Join(j), kc.ErrCancelled)
		eq(p, "OnCancel calls of the job and its child once the job is terminal", calls.Load(), int32(2))
		return nil
	}))
}
