package conformance

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// schedMoreCases hold the backends to more scheduler contract points:
// waits of bodies that hold their OS thread, children of one parent that
// end around a sibling's wake or Goexit, and bodies that yield while their
// siblings are queued.
func schedMoreCases() []Case {
	return []Case{
		mk("LockedBodyWaits", "05 park/unpark; DESIGN Backends: a body locked to its OS thread waits (Sleep, Join, Scope) and keeps running", lockedBodyWaits),
		mk("YieldersBesideQueuedWork", "05 yield: bodies that yield while their siblings are queued; every sibling runs once", yieldersBesideQueuedWork),
		mk("GoexitAfterSiblings", "DESIGN Panics (Goexit): a body's Goexit right after its siblings ended on the same worker", goexitAfterSiblings),
		mk("SiblingsEndAroundAWake", "05 park/unpark; 03 scope waits for its children: siblings that end around the wake of a sibling parked in a Join", siblingsEndAroundAWake),
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

// scopeRounds runs rounds scopes one after another in a root job of rt
// (supervisor scopes if supervisor), each running body, which counts the
// children it runs in ran (reset for each round): every scope must end
// without an error and with want children counted (what), and then done,
// if not nil, must hold. It stops at the first round that fails.
func scopeRounds(rt *kc.Runtime, p *probe, rounds int, supervisor bool, what string, want int32,
	body func(s *kc.Job, round int, ran *atomic.Int32) error, done func() bool) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		open, name := j.Scope, "Scope"
		if supervisor {
			open, name = j.SupervisorScope, "SupervisorScope"
		}
		var ran atomic.Int32
		for round := range rounds {
			ran.Store(0)
			err := open(func(s *kc.Job) error { return body(s, round, &ran) })
			if !p.noErr(name, err) || !eq(p, what, ran.Load(), want) || done != nil && !done() {
				return nil
			}
		}
		return nil
	}))
}

// siblingsRounds is how many scopes SiblingsEndAroundAWake runs.
const siblingsRounds = 100

// Round after round, a Scope's children end in a row on whatever worker
// runs them, around the wake of a sibling parked in the Join of another:
// nops, a short sleeper, its joiner, more nops. Every Scope must
// end, with every child run. A backend that batches the releases of a
// parent by the children that end on one worker, and drops (rather than
// passes on or flushes) the batch when that worker switches to the
// coroutine the wake readied, never ends the Scope: the case hangs.
func siblingsEndAroundAWake(rt *kc.Runtime, p *probe) {
	scopeRounds(rt, p, siblingsRounds, false, "children run in the scope", 8, func(s *kc.Job, round int, ran *atomic.Int32) error {
		counted := func(*kc.Job) error { ran.Add(1); return nil }
		for range 3 {
			if _, err := s.Launch(counted); err != nil {
				return err
			}
		}
		k, err := s.Launch(func(c *kc.Job) error {
			ran.Add(1)
			return c.Sleep(time.Duration(round%4+1) * 25 * time.Microsecond)
		})
		if err != nil {
			return err
		}
		if _, err := s.Launch(func(c *kc.Job) error { ran.Add(1); return k.Join(c) }); err != nil {
			return err
		}
		for range 3 {
			if _, err := s.Launch(counted); err != nil {
				return err
			}
		}
		return nil
	}, nil)
}

// yieldersRounds and yieldersTasks size YieldersBesideQueuedWork.
const (
	yieldersRounds = 40
	yieldersTasks  = 48
)

// Round after round, two bodies Yield (a bounded number of times) until
// their queued siblings, each busy for 2µs, have all run, so that workers
// take yielders back from wherever a backend keeps them while tasks are
// still queued on other workers' queues. Every sibling must run exactly
// once and every Scope end. A backend that, looking for work, takes a
// yielder back and also takes a queued task in the same look, and runs
// only the yielder, loses the task: the Scope never ends and the case
// hangs.
func yieldersBesideQueuedWork(rt *kc.Runtime, p *probe) {
	scopeRounds(rt, p, yieldersRounds, false, "siblings run", yieldersTasks, func(s *kc.Job, _ int, ran *atomic.Int32) error {
		for range 2 {
			if _, err := s.Launch(func(c *kc.Job) error {
				for i := 0; ran.Load() < yieldersTasks && i < 2000; i++ {
					if err := c.Yield(); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				return err
			}
		}
		for range yieldersTasks {
			if _, err := s.Launch(func(*kc.Job) error {
				for t0 := time.Now(); time.Since(t0) < 2*time.Microsecond; {
				}
				ran.Add(1)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	}, nil)
}

// goexitRounds is how many supervisor scopes GoexitAfterSiblings runs.
const goexitRounds = 50

// Round after round, a supervisor scope's children: one that calls
// runtime.Goexit, launched first, and eight that end at once. On a backend
// that runs a parent's children one after another on a worker, some of
// them end just before the Goexit on the same worker. Every scope must
// end, with its eight siblings run and the Goexit child failed with
// ErrGoexit. A backend that batches the releases of a parent by the
// children that end on one worker, and loses the batch when a body's
// Goexit ends that worker's goroutine (no deferred flush), never ends the
// scope: the case hangs.
func goexitAfterSiblings(rt *kc.Runtime, p *probe) {
	var g *kc.Job
	scopeRounds(rt, p, goexitRounds, true, "siblings run", 8, func(s *kc.Job, _ int, ran *atomic.Int32) error {
		var err error
		if g, err = s.Launch(func(*kc.Job) error { runtime.Goexit(); return nil }); err != nil {
			return err
		}
		for range 8 {
			if _, err := s.Launch(func(*kc.Job) error { ran.Add(1); return nil }); err != nil {
				return err
			}
		}
		return nil
	}, func() bool { return p.is("Result of the child that called Goexit", g.Result(), kc.ErrGoexit) })
}
