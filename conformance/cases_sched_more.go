package conformance

import (
	"runtime"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// schedMoreCases hold the backends to more scheduler contract points:
// waits of bodies that hold their OS thread, and bodies started on
// goroutines that a backend's own goroutines used before.
func schedMoreCases() []Case {
	return []Case{
		mk("LockedBodyWaits", "05 park/unpark; DESIGN Backends: a body locked to its OS thread waits (Sleep, Join, Scope) and keeps running", lockedBodyWaits),
	}
}

// Bodies that lock their OS thread (runtime.LockOSThread) and then wait:
// a short and a longer Sleep, the Join of a running child, a Scope whose
// child sleeps, then unlock and return. Each wait must return and the
// bodies finish, several at once so that some wait while others hold the
// workers. A backend that suspends the waiting body's coroutine (switches
// to another stack while the thread is locked) makes the Go runtime throw
// ("OS thread locking must match locking at coroutine creation"), which
// kills the suite's process: the case fails by crashing it. Such waits
// must block the goroutine instead.
func lockedBodyWaits(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.Scope(func(s *kc.Job) error {
			for i := range 8 {
				c, err := s.Launch(func(c *kc.Job) error {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					if err := c.Sleep(time.Duration(i) * 10 * time.Microsecond); err != nil {
						return err
					}
					if err := c.Sleep(time.Millisecond); err != nil {
						return err
					}
					gate := make(chan struct{})
					k, err := c.Launch(func(*kc.Job) error { <-gate; return nil })
					if err != nil {
						return err
					}
					go func() { time.Sleep(100 * time.Microsecond); close(gate) }()
					if err := k.Join(c); err != nil {
						return err
					}
					return c.Scope(func(s *kc.Job) error {
						_, err := s.Launch(func(g *kc.Job) error { return g.Sleep(50 * time.Microsecond) })
						return err
					})
				})
				if !p.job("Launch locked body", c, err) {
					return nil
				}
			}
			return nil
		})
	}))
}
