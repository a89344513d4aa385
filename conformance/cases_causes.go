package conformance

import (
	"slices"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// Of two Cancel calls the first moves the job to Cancelling and its cause
// is the one the job reports; the second returns false and changes nothing.
func firstCauseWins(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		c, err := j.Launch(sleeper)
		if !p.job("Launch", c, err) {
			return nil
		}
		p.check(c.Cancel(errCause), "first Cancel: got false; want true")
		p.check(!c.Cancel(errCause2), "second Cancel: got true; want false")
		err = c.Join(j)
		p.is("Join", err, kc.ErrCancelled, errCause)
		p.isNot("Join", err, errCause2)
		p.is("Result", c.Result(), errCause)
		return nil
	}))
}

// An explicit cause given after a timeout replaces it; one given before
// the timeout is kept.
func explicitCauseOverTimeout(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		err := j.WithTimeout(5*time.Millisecond, func(s *kc.Job) error {
			p.is("Sleep until the timeout", s.Sleep(time.Hour), kc.ErrCancelled, kc.ErrTimeout)
			p.check(!s.Cancel(errCause), "Cancel after the timeout: got true; want false (already cancelling)")
			return nil
		})
		p.is("WithTimeout, explicit cause after the timeout", err, kc.ErrCancelled, errCause)
		p.isNot("WithTimeout, explicit cause after the timeout", err, kc.ErrTimeout)

		// A slow start can let the timer fire before the body cancels:
		// then try a longer timeout.
		for d := 5 * time.Millisecond; d <= 320*time.Millisecond; d *= 4 {
			first := false
			err = j.WithTimeout(d, func(s *kc.Job) error {
				if first = s.Cancel(errCause); first {
					time.Sleep(d + 15*time.Millisecond) // the point: let the timer fire into a cancelled scope
				}
				return nil
			})
			if !first {
				continue
			}
			p.is("WithTimeout, explicit cause before the timeout", err, kc.ErrCancelled, errCause)
			p.isNot("WithTimeout, explicit cause before the timeout", err, kc.ErrTimeout)
			return nil
		}
		p.failf("Cancel before the timeout: got false even with a 320ms timeout; want true")
		return nil
	}))
}

// A failure recorded before the timeout fires wins: Failed, not a timeout.
func failureBeforeTimeout(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		for d := 20 * time.Millisecond; d <= 400*time.Millisecond; d *= 4 {
			ordered := false
			err := j.WithTimeout(d, func(s *kc.Job) error {
				deadline, _ := s.Deadline()
				_, err := s.Launch(failer)
				if launchTooLate(s, err) {
					return nil // the timer fired before the Launch: not ordered
				}
				p.noErr("Launch", err)
				<-s.Done()                            // closed by the failure's cancel (or by the timer, if late)
				ordered = time.Now().Before(deadline) // the timer cannot have fired yet
				time.Sleep(time.Until(deadline) + 10*time.Millisecond)
				return nil // the timer has fired into the failed scope
			})
			if !ordered {
				continue // too slow to fail before the deadline: try a longer one
			}
			p.is("WithTimeout", err, errBoom)
			p.isNot("WithTimeout", err, kc.ErrTimeout, kc.ErrCancelled)
			return nil
		}
		p.failf("could not order a failure before a 320ms timeout; want a failing child to fail its scope in time")
		return nil
	}))
}

// A failure recorded after the timeout started the cancellation leaves the
// scope Cancelled with ErrTimeout.
func failureAfterTimeout(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		for d := 5 * time.Millisecond; d <= 320*time.Millisecond; d *= 4 {
			var scope, kid *kc.Job
			ordered := false
			err := j.WithTimeout(d, func(s *kc.Job) error {
				scope = s
				started := make(chan struct{})
				var err error
				kid, err = s.Launch(func(c *kc.Job) error { close(started); <-c.Done(); return errBoom })
				if launchTooLate(s, err) {
					return nil // the timeout came before the launch: try a longer one
				}
				if !p.job("Launch", kid, err) {
					return nil
				}
				select {
				case <-started: // it fails only once the timeout cancels it
					ordered = true
				case <-s.Done(): // the timeout came first: it may never start
				}
				return s.Sleep(time.Hour)
			})
			if !ordered {
				continue
			}
			p.is("WithTimeout", err, kc.ErrTimeout)
			p.isNot("WithTimeout", err, errBoom)
			p.state("scope", scope, kc.Cancelled)
			p.state("child that failed after the timeout", kid, kc.Failed)
			if errs := scope.Errors(); p.check(len(errs) == 1, "scope Errors: got %v; want the late failure recorded", errs) {
				p.is("scope Errors()[0]", errs[0], errBoom)
			}
			return nil
		}
		p.failf("could not start a child within a 320ms timeout; want children to start promptly")
		return nil
	}))
}

// The first failure is the Result; Errors keeps them all, first first.
func firstErrorWins(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			c, err := s.Launch(func(c *kc.Job) error {
				started := make(chan struct{})
				_, err := c.Launch(func(b *kc.Job) error { close(started); <-b.Done(); return errBoom2 })
				if !p.noErr("Launch second", err) {
					return nil
				}
				<-started
				_, err = c.Launch(failer)
				p.noErr("Launch first", err)
				return nil
			})
			if !p.job("Launch", c, err) {
				return nil
			}
			err = c.Join(s)
			p.is("Join", err, errBoom)
			p.isNot("Join", err, errBoom2)
			p.is("Result", c.Result(), errBoom)
			errs := c.Errors()
			p.check(slices.Equal(errs, []error{errBoom, errBoom2}), "Errors: got %v; want [%v %v]", errs, errBoom, errBoom2)
			return nil
		})
	}))
}
