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
