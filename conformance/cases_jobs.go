package conformance

import (
	"runtime"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// jobCases check the decided semantics of single jobs: panics, Goexit,
// detached children, causes, awaits, finished jobs, errors.
func jobCases() []Case {
	return []Case{
		mk("PanicInBody", "DESIGN Panics", panicInBody),
		mk("PanicInOnCancel", "DESIGN Panics", panicInOnCancel),
		mk("GoexitInBody", "DESIGN Panics (Goexit)", goexitInBody),
		mk("BodyLeavesThreadLocked", "DESIGN Panics (Goexit); 05 workers", bodyLeavesThreadLocked),
		mk("DetachedNotWaited", "01 §4.17 detached child", detachedNotWaited),
		mk("DetachedNotCancelled", "01 §4.17 detached child", detachedNotCancelled),
		mk("FirstCauseWins", "01 §4.17 timeout vs explicit cancel", firstCauseWins),
		mk("ExplicitCauseOverTimeout", "01 §4.17 reason precedence", explicitCauseOverTimeout),
		mk("FailureBeforeTimeout", "01 §4.16 invariant 5", failureBeforeTimeout),
		mk("FailureAfterTimeout", "01 §4.16 invariant 5", failureAfterTimeout),
		mk("FirstErrorWins", "04 §8.1 first error wins", firstErrorWins),
		mk("AwaitFromGoroutine", "DESIGN Await (nil waiter)", awaitFromGoroutine),
		mk("AwaitFinishedByCancelledWaiter", "DESIGN Await", awaitFinishedByCancelledWaiter),
		mk("CancelFinishedJob", "04 §2.4 forbidden transitions", cancelFinishedJob),
		mk("CheckpointsObserveCancel", "04 §4.3 cooperative cancellation", checkpointsObserveCancel),
		mk("NilBodies", "DESIGN core API", nilBodies),
	}
}

func panicInBody(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			c, err := s.Launch(func(*kc.Job) error { panic("kaboom") })
			if p.job("Launch", c, err) {
				p.panicErr("Join of a panicking job", c.Join(s), "kaboom")
				p.state("panicking job", c, kc.Failed)
			}
			c, err = s.Launch(func(*kc.Job) error { panic(errBoom) })
			if p.job("Launch", c, err) {
				err := c.Join(s)
				p.panicErr("Join of a job panicking with an error", err, errBoom)
				p.is("Join of a job panicking with an error", err, errBoom)
			}
			p.panicErr("Scope with a panicking body", s.Scope(func(*kc.Job) error { panic(7) }), 7)
			d, err := kc.Async(s, func(*kc.Job) (int, error) { panic("async") })
			if p.noErr("Async", err) {
				_, err := d.Await(s)
				p.panicErr("Await of a panicking deferred", err, "async")
			}
			p.stillWorks(s, "the panics")
			return nil
		})
	}))
}

func panicInOnCancel(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			registered := make(chan struct{})
			c, err := s.Launch(func(c *kc.Job) error {
				c.OnCancel(func() { panic("hook") })
				close(registered)
				return c.Sleep(time.Hour)
			})
			if !p.job("Launch", c, err) {
				return nil
			}
			<-registered
			p.check(c.Cancel(nil), "Cancel: got false; want true")
			p.panicErr("Join of a job whose OnCancel callback panicked", c.Join(s), "hook")
			p.state("job", c, kc.Failed)
			return nil
		})
	}))
}

// A body that calls runtime.Goexit fails its job with ErrGoexit. The joins
// come from plain goroutines: a waiter may run an unstarted child inline,
// and Goexit would then end the waiter's goroutine too.
func goexitInBody(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			joined := make(chan error)
			c, err := s.Launch(func(*kc.Job) error { runtime.Goexit(); return nil })
			if p.job("Launch", c, err) {
				go func() { joined <- c.Join(nil) }()
				p.is("Join of a job that called Goexit", <-joined, kc.ErrGoexit)
				p.state("job", c, kc.Failed)
			}
			d, err := kc.Async(s, func(*kc.Job) (int, error) { runtime.Goexit(); return 1, nil })
			if p.noErr("Async", err) {
				go func() { _, err := d.Await(nil); joined <- err }()
				p.is("Await of a deferred that called Goexit", <-joined, kc.ErrGoexit)
			}
			p.stillWorks(s, "Goexit")
			return nil
		})
	}))
}

// A body may lock its OS thread and return, or call runtime.Goexit, with
// the lock still held; the runtime goes on, parks and wakes included. On a
// goroutine of its own such a lock ends with the goroutine. A backend that
// runs bodies on pooled goroutines or coroutines must undo it before it
// reuses that goroutine or switches away from the coroutine: the Go
// runtime throws on a coroutine switch whose thread lock differs from the
// coroutine's at its creation, which kills the suite's process (so this
// case fails by crashing it). Each round has one owner blocked on a Go
// channel while a sleeper's wake and the locked bodies wait, so that a
// backend's compensating workers run some of them.
func bodyLeavesThreadLocked(rt *kc.Runtime, p *probe) {
	locked := func(*kc.Job) error { runtime.LockOSThread(); return nil }
	lockedExit := func(*kc.Job) error { runtime.LockOSThread(); runtime.Goexit(); return nil }
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			for round := range 20 {
				gate := make(chan struct{})
				var jobs []*kc.Job
				c, err := s.Launch(func(c *kc.Job) error {
					err := c.Sleep(100 * time.Microsecond)
					close(gate)
					return err
				})
				if !p.job("Launch sleeper", c, err) {
					return nil
				}
				jobs = append(jobs, c)
				if c, err = s.Launch(func(*kc.Job) error { <-gate; return nil }); !p.job("Launch blocker", c, err) {
					close(gate)
					return nil
				}
				jobs = append(jobs, c)
				body := locked
				if round%2 == 1 {
					body = lockedExit
				}
				for range 4 {
					if c, err = s.Launch(body); !p.job("Launch locking body", c, err) {
						break
					}
					jobs = append(jobs, c)
				}
				for i, c := range jobs {
					done := make(chan error, 1)
					go func() { done <- c.Join(nil) }() // a waiter may run a child inline: Goexit would end it
					switch err := <-done; {
					case i < 2 || round%2 == 0:
						p.noErr("Join", err)
					default:
						p.is("Join of a locked body that called Goexit", err, kc.ErrGoexit)
					}
				}
			}
			nur, err := s.Open() // the runtime still parks and wakes
			if !p.noErr("Open", err) {
				return nil
			}
			c, err := nur.Launch(sleeper)
			if p.job("Launch after the locked bodies", c, err) {
				nur.Cancel(nil)
				p.is("Join of a cancelled sleeper", c.Join(nil), kc.ErrCancelled)
			}
			p.is("AwaitAll of the cancelled nursery", nur.AwaitAll(s), kc.ErrCancelled)
			return nil
		})
	}))
}

// A scope does not wait for its detached child.
func detachedNotWaited(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		gate := make(chan struct{})
		var det *kc.Job
		err := j.Scope(func(s *kc.Job) error {
			var err error
			det, err = s.Launch(func(*kc.Job) error { <-gate; return nil }, kc.Detached())
			if !p.job("Launch Detached()", det, err) {
				close(gate)
			}
			return nil
		})
		p.noErr("Scope", err)
		if det != nil {
			p.state("detached child when its parent scope returned", det, kc.Active)
			close(gate)
			p.noErr("Join of the detached child", det.Join(j))
			p.state("detached child", det, kc.Completed)
		}
		return nil
	}))
}

// Cancelling a parent does not cancel its detached child.
func detachedNotCancelled(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		dets := make(chan *kc.Job, 1)
		parent, err := j.Launch(func(pj *kc.Job) error {
			det, err := pj.Launch(sleeper, kc.Detached())
			p.job("Launch Detached()", det, err)
			dets <- det
			return pj.Sleep(time.Hour)
		})
		if !p.job("Launch", parent, err) {
			return nil
		}
		det := <-dets
		p.check(parent.Cancel(nil), "Cancel of the parent: got false; want true")
		p.is("parent Join", parent.Join(j), kc.ErrCancelled)
		if det == nil {
			return nil
		}
		p.check(!det.IsCancelled(), "detached child of a cancelled parent: got IsCancelled true; want false")
		p.state("detached child of a cancelled parent", det, kc.Active)
		eq(p, "detached child's Parent", det.Parent(), parent)
		p.check(det.Cancel(errCause), "Cancel of the detached child: got false; want true")
		p.is("detached child Join", det.Join(j), kc.ErrCancelled, errCause)
		return nil
	}))
}

func awaitFromGoroutine(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		gate := make(chan struct{})
		d, err := kc.Async(j, func(*kc.Job) (int, error) { <-gate; return 9, nil })
		if !p.noErr("Async", err) {
			return nil
		}
		type res struct {
			v   int
			err error
		}
		out := make(chan res, 3)
		for range 3 {
			go func() { v, err := d.Await(nil); out <- res{v, err} }()
		}
		close(gate)
		for range 3 {
			r := <-out
			p.noErr("Await(nil)", r.err)
			eq(p, "Await(nil) value", r.v, 9)
		}
		v, err := d.Await(nil)
		p.check(v == 9 && err == nil, "Await(nil) of a finished deferred: got (%v, %v); want (9, nil)", v, err)
		return j.SupervisorScope(func(s *kc.Job) error {
			df, err := kc.Async(s, func(*kc.Job) (int, error) { return 1, errBoom })
			if p.noErr("Async", err) {
				go func() { _, err := df.Await(nil); out <- res{0, err} }()
				p.is("Await(nil) of a failing deferred", (<-out).err, errBoom)
			}
			return nil
		})
	}))
}

// A finished deferred answers even a cancelled waiter with its outcome.
func awaitFinishedByCancelledWaiter(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			d, err1 := kc.Async(s, func(*kc.Job) (int, error) { return 5, nil })
			df, err2 := kc.Async(s, func(*kc.Job) (int, error) { return 0, errBoom })
			if !p.noErr("Async", err1) || !p.noErr("Async", err2) {
				return nil
			}
			d.Await(s)
			df.Await(s)
			w, err := s.Launch(func(w *kc.Job) error {
				w.Cancel(nil)
				v, err := d.Await(w)
				p.check(v == 5 && err == nil, "Await of a completed deferred by a cancelled waiter: got (%v, %v); want (5, nil)", v, err)
				_, err = df.Await(w)
				p.is("Await of a failed deferred by a cancelled waiter", err, errBoom)
				p.isNot("Await of a failed deferred by a cancelled waiter", err, kc.ErrCancelled)
				return nil
			})
			if p.job("Launch", w, err) {
				w.Join(s)
			}
			return nil
		})
	}))
}

// Cancel of a terminal job returns false and changes nothing.
func cancelFinishedJob(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			ok, err1 := s.Launch(nop)
			bad, err2 := s.Launch(failer)
			if !p.job("Launch", ok, err1) || !p.job("Launch", bad, err2) {
				return nil
			}
			ok.Join(s)
			bad.Join(s)
			before := rt.Stats()
			p.check(!ok.Cancel(errCause), "Cancel of a Completed job: got true; want false")
			p.check(!bad.Cancel(errCause), "Cancel of a Failed job: got true; want false")
			p.state("completed job after Cancel", ok, kc.Completed)
			p.noErr("completed job Result after Cancel", ok.Result())
			p.check(!ok.IsCancelled(), "completed job after Cancel: got IsCancelled true; want false")
			p.state("failed job after Cancel", bad, kc.Failed)
			p.is("failed job Result after Cancel", bad.Result(), errBoom)
			p.isNot("failed job Result after Cancel", bad.Result(), errCause)
			eq(p, "CancellationsRequested delta", rt.Stats().CancellationsRequested-before.CancellationsRequested, 0)
			return nil
		})
	}))
}

// Check, Yield and Sleep report cancellation once it is requested.
func checkpointsObserveCancel(rt *kc.Runtime, p *probe) {
	c, err := inChild(rt, p, func(c *kc.Job) error {
		p.noErr("Check", c.Check())
		p.noErr("Yield", c.Yield())
		start := time.Now()
		p.noErr("Sleep(2ms)", c.Sleep(2*time.Millisecond))
		p.check(time.Since(start) >= 2*time.Millisecond, "Sleep(2ms): returned after %v; want at least 2ms", time.Since(start))
		p.noErr("Sleep(0)", c.Sleep(0))
		c.Cancel(errCause)
		p.is("Check after Cancel", c.Check(), kc.ErrCancelled, errCause)
		p.is("Yield after Cancel", c.Yield(), kc.ErrCancelled, errCause)
		p.is("Sleep after Cancel", c.Sleep(time.Hour), kc.ErrCancelled, errCause)
		return c.Check()
	})
	p.is("Join", err, kc.ErrCancelled, errCause)
	p.state("job", c, kc.Cancelled)
}

func nilBodies(rt *kc.Runtime, p *probe) {
	p.is("Run(nil)", rt.Run(ctx, nil), kc.ErrNilBody)
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		c, err := j.Launch(nil)
		p.is("Launch(nil)", err, kc.ErrNilBody)
		p.check(c == nil, "Launch(nil): got a job; want nil")
		_, err = kc.Async[int](j, nil)
		p.is("Async(nil)", err, kc.ErrNilBody)
		p.is("Scope(nil)", j.Scope(nil), kc.ErrNilBody)
		return nil
	}))
}
