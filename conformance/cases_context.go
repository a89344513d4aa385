package conformance

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// contextCases check a Job as a context.Context (DESIGN "Context", "Errors").
func contextCases() []Case {
	return []Case{
		mk("ContextDoneAndErr", "DESIGN Context: Done, Err", contextDoneAndErr),
		mk("ContextValueAndDeadline", "DESIGN Context: Value, Deadline", contextValueAndDeadline),
		mk("ContextCancelsRoot", "DESIGN Context: cancelling the Run context", contextCancelsRoot),
		mk("RunCancelledContext", "DESIGN Context: Run with a context already cancelled", runCancelledContext),
		mk("ErrorsMatchContext", "DESIGN Errors", errorsMatchContext),
		mk("ContextErrStable", "DESIGN Context: Err; DESIGN Errors: an explicit cause replaces a timeout", contextErrStable),
	}
}

func contextDoneAndErr(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		c, err := j.Launch(sleeper)
		if !p.job("Launch", c, err) {
			return nil
		}
		var cc context.Context = c
		p.check(!closed(cc.Done()), "Done before Cancel: got closed; want open")
		p.noErr("Err before Cancel", cc.Err())
		derived, cancel := context.WithCancel(cc)
		defer cancel()
		p.check(c.Cancel(errCause), "Cancel: got false; want true")
		p.check(closed(cc.Done()), "Done after Cancel returned: got open; want closed")
		p.is("Err after Cancel", cc.Err(), context.Canceled, kc.ErrCancelled, errCause)
		select {
		case <-derived.Done():
			p.is("derived context Err", derived.Err(), context.Canceled)
		case <-time.After(patience):
			p.failf("context.WithCancel(job): got no cancellation after %v; want it cancelled with the job", patience)
		}
		p.is("Join", c.Join(j), kc.ErrCancelled, errCause)
		p.check(closed(c.Done()), "Done of a terminal job: got open; want closed")
		return nil
	}))
}

type ctxKey struct{}

func contextValueAndDeadline(rt *kc.Runtime, p *probe) {
	runCtx, cancel := context.WithTimeout(context.WithValue(ctx, ctxKey{}, "v"), time.Hour)
	defer cancel()
	runDeadline, _ := runCtx.Deadline()
	p.noErr("Run", rt.Run(runCtx, func(j *kc.Job) error {
		eq(p, "root Value", j.Value(ctxKey{}), any("v"))
		eq(p, "root Value of an unknown key", j.Value("no such key"), nil)
		dl, ok := j.Deadline()
		p.check(ok && dl.Equal(runDeadline), "root Deadline: got (%v, %v); want the Run context's (%v, true)", dl, ok, runDeadline)
		err := j.Scope(func(s *kc.Job) error {
			c, err := s.Launch(func(c *kc.Job) error {
				eq(p, "grandchild Value", c.Value(ctxKey{}), any("v"))
				return nil
			})
			p.job("Launch", c, err)
			return nil
		})
		p.noErr("Scope", err)
		start := time.Now()
		err = j.WithTimeout(time.Minute, func(s *kc.Job) error {
			c, err := s.Launch(func(c *kc.Job) error {
				dl, ok := c.Deadline()
				p.check(ok && !dl.Before(start.Add(time.Minute)) && dl.Before(time.Now().Add(time.Minute)),
					"Deadline inside WithTimeout(1m): got (%v, %v); want about a minute from now", dl, ok)
				eq(p, "Value inside WithTimeout", c.Value(ctxKey{}), any("v"))
				return nil
			})
			p.job("Launch", c, err)
			return nil
		})
		p.noErr("WithTimeout", err)
		return nil
	}))
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		dl, ok := j.Deadline()
		p.check(!ok, "Deadline without one: got (%v, true); want ok false", dl)
		eq(p, "Value without one", j.Value(ctxKey{}), nil)
		return nil
	}))
}

// Cancelling the Run context cancels the root, with the context's cause.
func contextCancelsRoot(rt *kc.Runtime, p *probe) {
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var kid *kc.Job
	err := rt.Run(runCtx, func(j *kc.Job) error {
		var err error
		kid, err = j.Launch(sleeper)
		p.job("Launch", kid, err)
		go cancel(errCause)
		return j.Sleep(time.Hour)
	})
	p.is("Run", err, kc.ErrCancelled, context.Canceled, errCause)
	p.state("child of the root", kid, kc.Cancelled)
}

// Run with a context that is already cancelled (or past its deadline)
// returns the cancellation, with the context's cause, every time; a body
// that runs at all sees the cancellation at its first checkpoint. Many
// rounds, because a late cancel loses a race with the body only sometimes.
func runCancelledContext(rt *kc.Runtime, p *probe) {
	const rounds = 200
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	withCause, cancelCause := context.WithCancelCause(ctx)
	cancelCause(errCause)
	expired, cancelExpired := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancelExpired()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want []error
	}{
		{"cancelled", cancelled, []error{kc.ErrCancelled, context.Canceled}},
		{"cancelled with a cause", withCause, []error{kc.ErrCancelled, context.Canceled, errCause}},
		{"past its deadline", expired, []error{kc.ErrCancelled, context.DeadlineExceeded}},
	} {
		var ran, unseen, wrong int
		var example error
		for range rounds {
			var bodyRan, sawIt atomic.Bool
			err := rt.Run(tc.ctx, func(j *kc.Job) error {
				bodyRan.Store(true)
				sawIt.Store(j.Check() != nil)
				return nil
			})
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					wrong++
					example = err
					break
				}
			}
			if bodyRan.Load() {
				ran++
				if !sawIt.Load() {
					unseen++
				}
			}
		}
		p.check(wrong == 0, "Run with a context %s: got %d of %d results not matching %q (e.g. %v); want all matching",
			tc.name, wrong, rounds, tc.want, example)
		p.check(unseen == 0, "Run with a context %s: got %d of %d bodies that ran (%d did) seeing no cancellation at their first Check; want none",
			tc.name, unseen, rounds, ran)
	}
}

// The sentinels match context's errors, and a body's error decides its
// job's state: ErrCancelled -> Cancelled; ErrTimeout and others -> Failed.
func errorsMatchContext(rt *kc.Runtime, p *probe) {
	p.check(errors.Is(kc.ErrCancelled, context.Canceled), "errors.Is(ErrCancelled, context.Canceled): got false; want true")
	p.check(errors.Is(kc.ErrTimeout, context.DeadlineExceeded), "errors.Is(ErrTimeout, context.DeadlineExceeded): got false; want true")
	p.check(!errors.Is(kc.ErrTimeout, kc.ErrCancelled), "errors.Is(ErrTimeout, ErrCancelled): got true; want false")
	p.check(!errors.Is(kc.ErrCancelled, kc.ErrTimeout), "errors.Is(ErrCancelled, ErrTimeout): got true; want false")
	te := &kc.TimeoutError{After: time.Second}
	p.check(errors.Is(te, kc.ErrTimeout) && !errors.Is(te, kc.ErrCancelled),
		"TimeoutError: got Is(ErrTimeout) %v, Is(ErrCancelled) %v; want true, false", errors.Is(te, kc.ErrTimeout), errors.Is(te, kc.ErrCancelled))
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			for _, tc := range []struct {
				ret  error
				want kc.State
			}{
				{kc.ErrCancelled, kc.Cancelled},
				{kc.ErrTimeout, kc.Failed},
				{errBoom, kc.Failed},
			} {
				c, err := s.Launch(func(*kc.Job) error { return tc.ret })
				if p.job("Launch", c, err) {
					c.Join(s)
					p.state("job whose body returned "+tc.ret.Error(), c, tc.want)
				}
			}
			return nil
		})
	}))
}

// Once Err is not nil it returns the same error on every call, as
// context.Context requires, also when an explicit Cancel then replaces the
// cause of a WithTimeout scope's timeout (DESIGN Errors: an explicit cause
// replaces a timeout): Err keeps the timeout's error while the scope's
// outcome takes the explicit cause.
func contextErrStable(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		err := j.WithTimeout(time.Millisecond, func(s *kc.Job) error {
			<-s.Done()
			first := s.Err()
			p.is("Err after the timeout", first, context.DeadlineExceeded)
			s.Cancel(errCause)
			if again := s.Err(); again != first {
				p.failf("Err after Cancel replaced the timeout's cause: got %v; want the same error as before, %v", again, first)
			}
			return nil
		})
		p.is("WithTimeout whose timeout's cause Cancel replaced", err, kc.ErrCancelled, errCause)
		return nil
	}))
}
