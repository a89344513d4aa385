package conformance

import (
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// shieldCases are spec 02's ignore_cancellation races and its HeapCancelNode
// disarm pattern (OnCancel).
func shieldCases() []Case {
	return []Case{
		mk("ShieldCancelBeforeEnter", "02 ignore_cancellation: cancel-before-ignore", shieldCancelBeforeEnter),
		mk("ShieldCancelInside", "02 ignore_cancellation: ignore-before-cancel", shieldCancelInside),
		mk("ShieldCancelFromParent", "02 ignore_cancellation: ignore-before-cancel", shieldCancelFromParent),
		mk("ShieldNested", "02 ignore_cancellation: nested ignore", shieldNested),
		mk("OnCancelStopBeforeCancel", "02 HeapCancelNode disarm", onCancelStopBeforeCancel),
		mk("OnCancelRunsOnce", "02 HeapCancelNode disarm", onCancelRunsOnce),
		mk("OnCancelAlreadyCancelled", "02 publish_cancel_node", onCancelAlreadyCancelled),
		mk("OnCancelNeverAfterCompletion", "02 HeapCancelNode on_cleanup", onCancelNeverAfterCompletion),
	}
}

// inChild runs f as the body of a child launched under a SupervisorScope of
// a root job, and returns the child and its Join result.
func inChild(rt *kc.Runtime, p *probe, f func(c *kc.Job) error) (child *kc.Job, joinErr error) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			var err error
			if child, err = s.Launch(f); p.job("Launch", child, err) {
				joinErr = child.Join(s)
			}
			return nil
		})
	}))
	return child, joinErr
}

// Cancel before Shield: Shield returns ErrCancelled without running its body.
func shieldCancelBeforeEnter(rt *kc.Runtime, p *probe) {
	c, err := inChild(rt, p, func(c *kc.Job) error {
		p.check(c.Cancel(errCause), "self Cancel: got false; want true")
		ran := false
		err := c.Shield(func() error { ran = true; return nil })
		p.is("Shield of a cancelled job", err, kc.ErrCancelled, errCause)
		p.check(!ran, "Shield of a cancelled job: got its body run; want it skipped")
		return err
	})
	p.is("Join", err, kc.ErrCancelled)
	p.state("job", c, kc.Cancelled)
}

// shieldProbe gives a job a sleeping child and an OnCancel hook, the two
// things a deferred cancel walk must leave alone until the shield exits.
type shieldProbe struct {
	kid   *kc.Job
	hooks atomic.Int32
	stop  func() bool // the hook's
}

func newShieldProbe(p *probe, c *kc.Job) *shieldProbe {
	sp := new(shieldProbe)
	var err error
	sp.kid, err = c.Launch(sleeper)
	p.job("Launch grandchild", sp.kid, err)
	sp.stop = c.OnCancel(func() { sp.hooks.Add(1) })
	return sp
}

// untouched checks, inside a shield, that the cancel is recorded but not
// walked and that the job still takes children; walked checks, after the
// shield, that the walk happened (it claimed the hook, which then runs on
// the executor: stop reports false); ran checks, once the job is terminal,
// that the hook ran once.
func (sp *shieldProbe) untouched(p *probe, c *kc.Job, where string) {
	p.check(!c.IsCancelled(), "%s: got IsCancelled true; want false", where)
	p.noErr(where+": Check", c.Check())
	if sp.kid != nil {
		p.check(!sp.kid.IsCancelled(), "%s: got the child cancelled; want its cancellation deferred to the shield's exit", where)
	}
	eq(p, where+": OnCancel calls", sp.hooks.Load(), 0)
	p.check(!closed(c.Done()), "%s: got Done closed; want it closed at the shield's exit", where)
	// A job that hides its cancellation still takes children: the refusal
	// of a cancelled parent waits for the shield's exit too.
	k, err := c.Launch(nop)
	if p.job(where+": Launch", k, err) {
		p.noErr(where+": Join of the child launched", k.Join(c))
	}
}

func (sp *shieldProbe) walked(p *probe, c *kc.Job, where string) {
	p.check(c.IsCancelled(), "%s: got IsCancelled false; want true", where)
	p.is(where+": Check", c.Check(), kc.ErrCancelled, errCause)
	if sp.kid != nil {
		p.check(sp.kid.IsCancelled() || sp.kid.State().Terminal(),
			"%s: got the child in state %v and not cancelled; want it cancelled by the shield's exit", where, sp.kid.State())
	}
	p.check(!sp.stop(), "%s: stop of the OnCancel callback: got true; want false (the walk claimed it)", where)
	p.check(closed(c.Done()), "%s: got Done open; want it closed", where)
}

func (sp *shieldProbe) ran(p *probe, where string) {
	eq(p, where+": OnCancel calls", sp.hooks.Load(), 1)
}

// A cancel inside Shield is recorded but hidden; the walk of children and
// hooks happens when the shield exits.
func shieldCancelInside(rt *kc.Runtime, p *probe) {
	var sp *shieldProbe
	c, err := inChild(rt, p, func(c *kc.Job) error {
		sp = newShieldProbe(p, c)
		err := c.Shield(func() error {
			p.check(c.Cancel(errCause), "Cancel inside Shield: got false; want true")
			sp.untouched(p, c, "inside Shield after Cancel")
			p.noErr("Sleep inside Shield after Cancel", c.Sleep(time.Millisecond))
			return nil
		})
		p.noErr("Shield", err)
		sp.walked(p, c, "after Shield")
		return c.Check()
	})
	p.is("Join", err, kc.ErrCancelled, errCause)
	p.state("job", c, kc.Cancelled)
	if sp != nil {
		sp.ran(p, "once the job is terminal")
	}
}

// A cancel that reaches a shielded job from its parent is deferred the same way.
func shieldCancelFromParent(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		inside, proceed := make(chan struct{}), make(chan struct{})
		var c *kc.Job
		var sp *shieldProbe
		parent, err := j.Launch(func(pj *kc.Job) error {
			var err error
			c, err = pj.Launch(func(c *kc.Job) error {
				sp = newShieldProbe(p, c)
				err := c.Shield(func() error {
					close(inside)
					<-proceed
					sp.untouched(p, c, "inside Shield after the parent's Cancel")
					return nil
				})
				p.noErr("Shield", err)
				sp.walked(p, c, "after Shield")
				return c.Check()
			})
			if !p.job("Launch shielded child", c, err) {
				close(inside)
			}
			return pj.Sleep(time.Hour)
		})
		if !p.job("Launch parent", parent, err) {
			return nil
		}
		<-inside
		p.check(parent.Cancel(errCause), "Cancel of the parent: got false; want true")
		close(proceed)
		p.is("parent Join", parent.Join(j), kc.ErrCancelled)
		p.state("shielded child", c, kc.Cancelled)
		if sp != nil {
			sp.ran(p, "once the shielded child is terminal")
		}
		return nil
	}))
}

// Shields nest: only the outermost exit performs the walk.
func shieldNested(rt *kc.Runtime, p *probe) {
	var sp *shieldProbe
	c, err := inChild(rt, p, func(c *kc.Job) error {
		sp = newShieldProbe(p, c)
		err := c.Shield(func() error {
			err := c.Shield(func() error {
				p.check(c.Cancel(errCause), "Cancel inside nested Shield: got false; want true")
				return nil
			})
			p.noErr("inner Shield", err)
			sp.untouched(p, c, "after the inner Shield, inside the outer")
			return nil
		})
		p.noErr("outer Shield", err)
		sp.walked(p, c, "after the outer Shield")
		return c.Check()
	})
	p.is("Join", err, kc.ErrCancelled)
	p.state("job", c, kc.Cancelled)
	if sp != nil {
		sp.ran(p, "once the job is terminal")
	}
}

// stop before the cancel prevents the call: true, and f never runs.
func onCancelStopBeforeCancel(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		c, err := j.Launch(sleeper)
		if !p.job("Launch", c, err) {
			return nil
		}
		var calls atomic.Int32
		stop := c.OnCancel(func() { calls.Add(1) })
		p.check(stop(), "stop before Cancel: got false; want true")
		p.check(!stop(), "second stop: got true; want false")
		p.check(c.Cancel(nil), "Cancel: got false; want true")
		p.is("Join", c.Join(j), kc.ErrCancelled)
		eq(p, "OnCancel calls after stop", calls.Load(), 0)
		return nil
	}))
}

// f runs once, however many cancels arrive; stop after it reports false.
func onCancelRunsOnce(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var calls atomic.Int32
		checked := make(chan struct{})
		parent, err := j.Launch(func(pj *kc.Job) error {
			c, err := pj.Launch(sleeper)
			if !p.job("Launch", c, err) {
				close(checked)
				return err
			}
			stop := c.OnCancel(func() { calls.Add(1) })
			p.check(c.Cancel(errCause), "Cancel: got false; want true")
			p.check(!c.Cancel(errCause2), "second Cancel: got true; want false")
			p.is("Join", c.Join(pj), kc.ErrCancelled)
			eq(p, "OnCancel calls once the job is terminal", calls.Load(), 1)
			p.check(!stop(), "stop after the call: got true; want false")
			close(checked)
			return pj.Sleep(time.Hour)
		})
		if !p.job("Launch parent", parent, err) {
			return nil
		}
		<-checked
		parent.Cancel(nil) // reaches the already cancelled child: no second call
		p.is("parent Join", parent.Join(j), kc.ErrCancelled)
		eq(p, "OnCancel calls after the parent's cancel", calls.Load(), 1)
		return nil
	}))
}

// OnCancel on an already cancelled job runs f at once, on the caller.
func onCancelAlreadyCancelled(rt *kc.Runtime, p *probe) {
	c, err := inChild(rt, p, func(c *kc.Job) error {
		c.Cancel(nil)
		calls := 0
		stop := c.OnCancel(func() { calls++ })
		eq(p, "OnCancel calls when OnCancel returns", calls, 1)
		p.check(!stop(), "stop after the call: got true; want false")
		eq(p, "OnCancel calls after stop", calls, 1)
		return c.Check()
	})
	p.is("Join", err, kc.ErrCancelled)
	p.state("job", c, kc.Cancelled)
}

// A job that completes drops its hooks: f never runs, not even on a later Cancel.
func onCancelNeverAfterCompletion(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var calls atomic.Int32
		gate := make(chan struct{})
		c, err := j.Launch(func(*kc.Job) error { <-gate; return nil })
		if !p.job("Launch", c, err) {
			close(gate)
			return nil
		}
		c.OnCancel(func() { calls.Add(1) })
		close(gate)
		p.noErr("Join", c.Join(j))
		p.state("job", c, kc.Completed)
		p.check(!c.Cancel(errCause), "Cancel of a completed job: got true; want false")
		c.OnCancel(func() { calls.Add(1) }) // registered after the end: never runs either
		eq(p, "OnCancel calls", calls.Load(), 0)
		return nil
	}))
}
