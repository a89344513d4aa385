package conformance

import (
	"context"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// contractCases hold the core and the backends to contract points that no
// other case pinned down: each rejects a plausible bug (in the core or in a
// backend, found by mutation testing of the suite) that every other case
// let through.
func contractCases() []Case {
	return []Case{
		mk("DeadlineInheritance", "DESIGN Context: Deadline (earliest of the scopes and the Run context; detached jobs inherit none)", deadlineInheritance),
		mk("ContextOfCompletedJob", "DESIGN Context: Done closed and Err set on every terminal state", contextOfCompletedJob),
		mk("ValueInDetachedJob", "DESIGN Context: Value looks up the parent chain, then the Run context", valueInDetachedJob),
		mk("NamedJobs", "DESIGN core API: Named", namedJobs),
		mk("RuntimeName", "DESIGN core API: Name (WithName, else the executor's Name method, else \"custom\")", runtimeName),
		mk("ResultNilUntilTerminal", "DESIGN core API: Result is nil while not terminal", resultNilUntilTerminal),
		mk("CountersOfInterruptedWaits", "01 Observability: counters exactly once (waits woken by cancel or timeout; a cause replacing a timeout)", countersOfInterruptedWaits),
		mk("SelectFairness", "05 Select: among ready cases one is chosen at random", selectFairness),
		mk("ShieldBodyPanics", "02 ignore_cancellation: leaving the shield by a panic", shieldBodyPanics),
		mk("ShieldHidesCancelFromWaits", "02 ignore_cancellation: Yield, Join and channel operations inside a shield", shieldHidesCancelFromWaits),
		mk("AwaitWaitsForChildren", "DESIGN Await: the deferred's job is terminal (children included)", awaitWaitsForChildren),
		mk("ActorStopsWhenCancelled", "03 kc_scope_actor: a cancelled actor handles no more messages", actorStopsWhenCancelled),
		mk("WithTimeoutNonPositive", "DESIGN WithTimeout: d <= 0 skips the body", withTimeoutNonPositive),
		mk("DetachedBesideAttachedChildren", "01 §4.17 detached child, in a parent whose cancel walk goes down", detachedBesideAttached),
		mk("LeaseReleaseTwiceKeepsChildHold", "02 PromiseChildLease: releasing twice is harmless", leaseReleaseTwice),
		mk("PoolCreatePanics", "05 Channels: owned (pool): a create that panics frees its place", poolCreatePanics),
		mk("OnCancelStopRacesCancel", "02 HeapCancelNode disarm: stop racing the cancel walk", onCancelStopRacesCancel),
		mk("EarlyWake", "05 park/unpark: a wake that comes before Park is not lost", earlyWake),
		mk("ShortTimersBesideLongOnes", "05 Sleep queue: a short timer armed after long ones fires on time", shortTimersBesideLongOnes),
		mk("LeaseReleaseRunsNoUserCode", "DESIGN Lease: the release that lets the job finish never runs user code on the releasing goroutine", leaseReleaseRunsNoUserCode),
		mk("LeaseReleaseCancelsAtOnce", "DESIGN Failure, Lease: a failure a release lets out has cancelled the parent and its other children when release returns", leaseReleaseCancelsAtOnce),
		mk("TimerLatency", "05 Sleep queue: latency bounded by the monitor's tick", timerLatency),
		mk("OnCancelWhenCancelMeetsFinish", "02 HeapCancelNode: a cancellation that meets the job finishing runs its callbacks before it is terminal", onCancelWhenCancelMeetsFinish),
		mk("SleepNeverEarly", "05 Sleep queue: no sleep returns before its duration, among many short timers due close together", sleepNeverEarly),
		mk("SleepNotLate", "05 Sleep queue: a sleep returns soon after its duration, not a fraction of it later", sleepNotLate),
		mk("OnCancelPanicAtOnce", "DESIGN Panics: an OnCancel callback run at once panics into its caller (a body: *PanicError)", onCancelPanicAtOnce),
		mk("OnCancelGoexit", "DESIGN Panics (Goexit): an OnCancel callback that calls Goexit ends its own goroutine only; the job fails with ErrGoexit", onCancelGoexit),
		mk("OnCancelOffCanceller", "02 HeapCancelNode, like context.AfterFunc: a cancel walk runs no callback on the cancelling goroutine", onCancelOffCanceller),
	}
}

// A job's Deadline is the earliest of the WithTimeout scopes it is in and
// of the Run context, for children at any depth; a detached job inherits
// none of its launcher's.
func deadlineInheritance(rt *kc.Runtime, p *probe) {
	runCtx, cancel := context.WithTimeout(ctx, time.Hour)
	defer cancel()
	runDeadline, _ := runCtx.Deadline()
	p.noErr("Run", rt.Run(runCtx, func(j *kc.Job) error {
		c, err := j.Launch(func(c *kc.Job) error {
			dl, ok := c.Deadline()
			p.check(ok && dl.Equal(runDeadline), "Deadline of a child of the root: got (%v, %v); want the Run context's (%v, true)", dl, ok, runDeadline)
			return nil
		})
		if p.job("Launch", c, err) {
			p.noErr("Join", c.Join(j))
		}
		start := time.Now()
		p.noErr("WithTimeout(1m)", j.WithTimeout(time.Minute, func(outer *kc.Job) error {
			return outer.WithTimeout(time.Hour/2, func(inner *kc.Job) error {
				c, err := inner.Launch(func(c *kc.Job) error {
					dl, ok := c.Deadline()
					p.check(ok && !dl.Before(start.Add(time.Minute)) && dl.Before(time.Now().Add(time.Minute)),
						"Deadline inside WithTimeout(30m) inside WithTimeout(1m): got (%v, %v); want the outer, earlier one, about a minute from now", dl, ok)
					return nil
				})
				if p.job("Launch", c, err) {
					p.noErr("Join", c.Join(inner))
				}
				return nil
			})
		}))
		return nil
	}))
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.WithTimeout(time.Minute, func(s *kc.Job) error {
			det, err := s.Launch(func(d *kc.Job) error {
				dl, ok := d.Deadline()
				p.check(!ok, "Deadline of a detached job launched in a WithTimeout scope: got (%v, true); want ok false (it is not cancelled with the scope)", dl)
				return nil
			}, kc.Detached())
			if p.job("Launch Detached()", det, err) {
				p.noErr("Join of the detached job", det.Join(s))
			}
			return nil
		})
	}))
}

// A job that completes closes the Done channel a caller took before (and
// gives a closed one to a caller who asks only after), and its Err is not
// nil: a context's Err is nil exactly while Done is open
// (the context package panics on a done parent whose Err is nil).
// context.AfterFunc and derived contexts then see it done.
func contextOfCompletedJob(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		gate := make(chan struct{})
		c, err := j.Launch(func(*kc.Job) error { <-gate; return nil })
		if !p.job("Launch", c, err) {
			close(gate)
			return nil
		}
		done := c.Done()
		p.check(!closed(done), "Done of a running job: got closed; want open")
		p.noErr("Err of a running job", c.Err())
		close(gate)
		p.noErr("Join", c.Join(j))
		p.state("job", c, kc.Completed)
		p.check(closed(done), "Done taken before the job completed: got open after it completed; want closed")
		p.check(closed(c.Done()), "Done of a completed job: got open; want closed")
		err = c.Err()
		if !p.check(err != nil, "Err of a completed job: got nil with Done closed; want an error") {
			return nil // the context package would panic below
		}
		p.is("Err of a completed job", err, context.Canceled)
		derived, cancel := context.WithCancel(c)
		defer cancel()
		p.check(closed(derived.Done()), "context.WithCancel of a completed job: got Done open; want closed")
		fired := make(chan struct{})
		context.AfterFunc(c, func() { close(fired) })
		select {
		case <-fired:
		case <-time.After(patience):
			p.failf("context.AfterFunc of a completed job: got no call after %v; want one", patience)
		}
		// A Done channel first asked for once the job has ended is closed
		// too: no walk is left to close a channel made then.
		late, err := j.Launch(nop)
		if p.job("Launch of a second job", late, err) {
			p.noErr("Join of the second job", late.Join(j))
			p.check(closed(late.Done()), "Done first taken after the job completed: got open; want closed")
		}
		return nil
	}))
}

// A detached job's Value looks up its launcher's chain and the Run context.
func valueInDetachedJob(rt *kc.Runtime, p *probe) {
	runCtx := context.WithValue(ctx, ctxKey{}, "v")
	p.noErr("Run", rt.Run(runCtx, func(j *kc.Job) error {
		got := make(chan any, 2)
		det, err := j.Launch(func(d *kc.Job) error {
			got <- d.Value(ctxKey{})
			c, err := d.Launch(func(c *kc.Job) error { got <- c.Value(ctxKey{}); return nil })
			if err != nil {
				got <- err
			} else {
				c.Join(d)
			}
			return nil
		}, kc.Detached())
		if !p.job("Launch Detached()", det, err) {
			return nil
		}
		p.noErr("Join", det.Join(j))
		eq(p, "Value in a detached job", <-got, any("v"))
		eq(p, "Value in a child of a detached job", <-got, any("v"))
		return nil
	}))
}

// Named gives a job its name, whatever makes it.
func namedJobs(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		c, err := j.Launch(nop, kc.Named("worker"))
		if p.job("Launch Named", c, err) {
			eq(p, "Name of a Launch'd job", c.Name(), "worker")
			c.Join(j)
		}
		d, err := kc.Async(j, func(*kc.Job) (int, error) { return 1, nil }, kc.Named("deferred"))
		if p.noErr("Async Named", err) {
			eq(p, "Name of an Async job", d.Job().Name(), "deferred")
			d.Await(j)
		}
		n, err := j.Open(kc.Named("nursery"))
		if p.job("Open Named", n, err) {
			eq(p, "Name of a nursery", n.Name(), "nursery")
			n.AwaitAll(j)
		}
		u, err := j.Launch(nop)
		if p.job("Launch", u, err) {
			eq(p, "Name of an unnamed job", u.Name(), "")
			u.Join(j)
		}
		return nil
	}))
}

// Result and TryResult report nothing while the job is not terminal, even
// once a failure is recorded.
func resultNilUntilTerminal(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		release, err := n.Lease()
		if !p.noErr("Lease", err) {
			return
		}
		bad, err := n.Launch(failer)
		if p.job("Launch failing child", bad, err) {
			bad.Join(w)
		}
		p.waitUntil("the nursery to record the failure", func() bool { return len(n.Errors()) > 0 })
		p.state("nursery holding a lease after a child failed", n, kc.Cancelling)
		p.noErr("Result of a Cancelling nursery with a failure recorded", n.Result())
		res, done := n.TryResult()
		p.check(!done && res == nil, "TryResult while Cancelling: got (%v, %v); want (nil, false)", res, done)
		release()
		p.is("AwaitAll", n.AwaitAll(w), errBoom)
		p.is("Result once Failed", n.Result(), errBoom)
	})
}

// Waits woken by a timeout or by their waiter's cancellation are counted
// woken once, like the others; an explicit cause replacing a timeout's
// requests no second cancellation.
func countersOfInterruptedWaits(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		p.awaitRunWaiter(rt)
		return j.SupervisorScope(func(s *kc.Job) error {
			n, err := s.Open()
			if !p.job("Open", n, err) {
				return nil
			}
			release, err := n.Lease()
			if !p.noErr("Lease", err) {
				return nil
			}
			before := rt.Stats()
			p.is("WaitAll(2ms) with a lease held", n.WaitAll(2*time.Millisecond), kc.ErrTimeout)
			d := statsDelta(before, rt.Stats())
			eq(p, "WaitersRegistered delta of a WaitAll that timed out", d.WaitersRegistered, uint64(1))
			eq(p, "WaitersWoken delta of a WaitAll that timed out", d.WaitersWoken, uint64(1))

			before = rt.Stats()
			w, err := s.Launch(func(w *kc.Job) error { return n.Join(w) })
			if p.job("Launch waiter", w, err) {
				p.waitUntil("the Join to register", func() bool { return rt.Stats().WaitersRegistered > before.WaitersRegistered })
				w.Cancel(errCause)
				p.is("Join of the cancelled waiter", w.Join(s), kc.ErrCancelled)
			}
			d = statsDelta(before, rt.Stats())
			p.check(d.WaitersRegistered >= 1, "WaitersRegistered delta around a Join woken by cancellation: got %d; want at least 1", d.WaitersRegistered)
			eq(p, "WaitersWoken delta around a Join woken by cancellation (all waits over)", d.WaitersWoken, d.WaitersRegistered)
			release()
			p.noErr("AwaitAll", n.AwaitAll(s))

			before = rt.Stats()
			err = s.WithTimeout(2*time.Millisecond, func(t *kc.Job) error {
				t.Sleep(time.Hour) // until the timeout
				p.check(!t.Cancel(errCause), "Cancel after the timeout: got true; want false")
				return nil
			})
			p.is("WithTimeout whose timeout cause was replaced", err, kc.ErrCancelled, errCause)
			d = statsDelta(before, rt.Stats())
			p.stats("Stats of a WithTimeout whose timeout cause was replaced", d, 1, 1, 0, 0, 1)
			return nil
		})
	}))
}

// namedExec is borrowed with a Name method.
type namedExec struct{ borrowed }

func (namedExec) Name() string { return "conformance-executor" }

// A Runtime's Name is the one WithName gives, else its executor's Name
// method's, else "custom". A runtime that ignores WithName, or the
// executor's name, reports another.
func runtimeName(rt *kc.Runtime, p *probe) {
	ex := rt.Executor()
	for _, c := range []struct {
		what string
		rt   *kc.Runtime
		want string
	}{
		{"a runtime made WithName", kc.New(namedExec{borrowed{ex}}, kc.WithName("conformance-name")), "conformance-name"},
		{"a runtime over an executor with a Name method", kc.New(namedExec{borrowed{ex}}), "conformance-executor"},
		{"a runtime over an executor without one", kc.New(borrowed{ex}), "custom"},
	} {
		eq(p, "Name of "+c.what, c.rt.Name(), c.want)
		p.noErr("Close of "+c.what, c.rt.Close())
	}
}
