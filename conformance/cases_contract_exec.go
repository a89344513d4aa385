package conformance

import (
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// More of contractCases (cases_contract.go): what the executor owes the
// core: early wakes, timers, and no user code on a releasing goroutine.

// Waits whose wake comes while they are on their way to park (registered,
// not yet parked): Joins, from plain goroutines and from a job, of jobs
// that end the moment a wait registers, and WaitAlls whose lease is
// released then. An
// executor that loses a wake that came before Park (Parker.Suspend
// reporting false, ignored) hangs on one of them.
func earlyWake(rt *kc.Runtime, p *probe) {
	// untilRegistered spins until a waiter registers after before (or
	// for a bounded time: a round that misses is only a round lost).
	untilRegistered := func(before uint64) {
		for i := 0; rt.Stats().WaitersRegistered == before && i < 1e6; i++ {
			if i%64 == 63 {
				runtime.Gosched()
			}
		}
	}
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		p.awaitRunWaiter(rt)
		end := time.Now().Add(earlyWakeBudget)
		for pass := 0; pass == 0 || time.Now().Before(end); pass++ {
			if !earlyWakePass(rt, p, j, untilRegistered) {
				return nil
			}
		}
		return nil
	}))
}

// earlyWakePass is one pass of EarlyWake's waits; it reports whether
// they all went through.
func earlyWakePass(rt *kc.Runtime, p *probe, j *kc.Job, untilRegistered func(uint64)) bool {
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range earlyWakeRounds / 2 {
				before := rt.Stats().WaitersRegistered
				c, err := j.Launch(func(*kc.Job) error { untilRegistered(before); return nil })
				if !p.job("Launch", c, err) {
					return
				}
				c.Join(nil) // from a plain goroutine: never runs c inline
			}
		}()
	}
	wg.Wait()
	// The same with a job as the waiter, parked as a task of the
	// executor (where a backend may suspend it instead of blocking).
	started, _ := kc.NewChan[struct{}](1)
	for range earlyWakeRounds / 2 {
		before := rt.Stats().WaitersRegistered
		c, err := j.Launch(func(*kc.Job) error {
			started.TrySend(struct{}{})
			untilRegistered(before)
			return nil
		})
		if !p.job("Launch", c, err) {
			return false
		}
		started.Recv(j) // c runs: the Join below waits instead of running it inline
		c.Join(j)
	}
	n, err := j.Open()
	if !p.job("Open", n, err) {
		return false
	}
	for range earlyWakeRounds {
		release, err := n.Lease()
		if !p.noErr("Lease", err) {
			return false
		}
		before := rt.Stats().WaitersRegistered
		go func() { untilRegistered(before); release() }()
		p.noErr("WaitAll(-1)", n.WaitAll(-1))
	}
	return p.noErr("AwaitAll", n.AwaitAll(j))
}

// Short timers armed while long ones are pending (sleepers of an hour, on
// every P) fire on time.
func shortTimersBesideLongOnes(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		n, err := j.Open()
		if !p.job("Open", n, err) {
			return nil
		}
		stop := p.deadman("short timers armed after long ones", func() { j.Cancel(nil) })
		defer stop()
		sleeping := make(chan struct{}, 64)
		for range 4 * runtime.GOMAXPROCS(0) {
			if _, err := n.Launch(func(c *kc.Job) error { sleeping <- struct{}{}; return c.Sleep(time.Hour) }); !p.noErr("Launch sleeper", err) {
				break
			}
		}
		for range 4 * runtime.GOMAXPROCS(0) {
			<-sleeping
		}
		err = j.Scope(func(s *kc.Job) error {
			for range 4 * runtime.GOMAXPROCS(0) {
				if _, err := s.Launch(func(c *kc.Job) error {
					for range 5 {
						if err := c.Sleep(time.Millisecond); err != nil {
							return err
						}
					}
					if err := c.WithTimeout(time.Millisecond, sleeper); !errors.Is(err, kc.ErrTimeout) {
						return err
					}
					return nil
				}); err != nil {
					return err
				}
			}
			return nil
		})
		p.noErr("Scope of short sleepers beside long ones", err)
		n.Cancel(nil)
		p.is("AwaitAll of the long sleepers", n.AwaitAll(j), kc.ErrCancelled)
		return nil
	}))
}

// timerBound is how late a 1ms timer may fire in the best of several tries:
// spec 05 bounds sleep resolution by the monitor's tick (about 250µs);
// this leaves two orders of magnitude for a loaded machine.
const timerBound = 100 * time.Millisecond

// Sleep, WithTimeout and WaitAll with a timeout of 1ms return soon after
// it: the best of 10 tries of each within timerBound.
func timerLatency(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		n, err := j.Open()
		if !p.job("Open", n, err) {
			return nil
		}
		release, err := n.Lease()
		if !p.noErr("Lease", err) {
			return nil
		}
		defer release()
		for _, tc := range []struct {
			what string
			wait func() error
			want error
		}{
			{"Sleep(1ms)", func() error { return j.Sleep(time.Millisecond) }, nil},
			{"WithTimeout(1ms) of a sleeper", func() error { return j.WithTimeout(time.Millisecond, sleeper) }, kc.ErrTimeout},
			{"WaitAll(1ms) with a lease held", func() error { return n.WaitAll(time.Millisecond) }, kc.ErrTimeout},
		} {
			best := time.Duration(1<<63 - 1)
			for range 10 {
				start := time.Now()
				err := tc.wait()
				best = min(best, time.Since(start))
				if tc.want == nil && !p.noErr(tc.what, err) || tc.want != nil && !p.is(tc.what, err, tc.want) {
					return nil
				}
			}
			p.check(best < timerBound, "%s: the fastest of 10 took %v; want under %v", tc.what, best, timerBound)
		}
		return nil
	}))
}

// The release of the last lease of a nursery whose child failed ends the
// nursery Failed, which fails and cancels its parent: the parent's OnCancel
// callback must not run on the goroutine that called release (DESIGN
// "Lease": the release runs no user code). The callback here blocks until
// release has returned, so a release that runs it does not return.
func leaseReleaseRunsNoUserCode(rt *kc.Runtime, p *probe) {
	unblock := make(chan struct{})
	inSupervisedParent(rt, p, func(pj *kc.Job) error {
		pj.OnCancel(func() { <-unblock }) // user code that waits for release to return
		n, release, err := failedLeasedNursery(p, pj)
		if err != nil {
			return err
		}
		returned := make(chan struct{})
		go func() { release(); close(returned) }()
		select {
		case <-returned:
		case <-time.After(stallBound):
			p.failf("release of the last lease of a failed nursery: got no return after %v, blocked in the parent's OnCancel callback; want it to run no user code", stallBound)
		}
		close(unblock)
		<-returned
		return n.AwaitAll(pj)
	})
}

// The same release lets the nursery's failure out as the end of a body
// would: by the time release returns, the failure has cancelled the
// nursery's parent and, through the parent's cancel walk, the parent's
// other nursery, which with no children is then Cancelled (DESIGN
// "Nursery cancellation"). So the releasing body sees its own steps in
// order, whatever the executor: a sibling it closes next does not end
// Completed, and nothing more can be launched into it.
func leaseReleaseCancelsAtOnce(rt *kc.Runtime, p *probe) {
	inSupervisedParent(rt, p, func(pj *kc.Job) error {
		_, release, err := failedLeasedNursery(p, pj)
		if err != nil {
			return err
		}
		other, err := pj.Open()
		if !p.job("Open the other nursery", other, err) {
			release()
			return err
		}
		release()
		p.check(pj.IsCancelled(), "parent right after the release: not cancelled; want cancelled by the nursery's failure")
		p.state("other nursery right after the release", other, kc.Cancelled)
		_, err = other.Launch(func(*kc.Job) error { return nil })
		p.is("Launch into the other nursery after the release", err, kc.ErrCancelled)
		other.Close()
		p.state("other nursery after Close", other, kc.Cancelled)
		return nil
	})
}

// inSupervisedParent runs body as a job launched into a supervisor scope
// of a root job, and checks that the job ends with errBoom, the failure
// its body lets out.
func inSupervisedParent(rt *kc.Runtime, p *probe, body kc.Func) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.SupervisorScope(func(sup *kc.Job) error {
			parent, err := sup.Launch(body)
			if p.job("Launch", parent, err) {
				p.is("Join of the parent", parent.Join(sup), errBoom)
			}
			return nil
		})
	}))
}

// failedLeasedNursery opens a nursery in pj, takes a lease on it and lets
// a child of it fail with errBoom: the nursery is then Cancelling, and the
// release of the lease ends it Failed, which fails and cancels pj.
func failedLeasedNursery(p *probe, pj *kc.Job) (n *kc.Job, release func(), err error) {
	n, err = pj.Open()
	if !p.job("Open", n, err) {
		return nil, nil, err
	}
	release, err = n.Lease()
	if !p.noErr("Lease", err) {
		return nil, nil, err
	}
	bad, err := n.Launch(failer)
	if !p.job("Launch failing child", bad, err) {
		release()
		return nil, nil, err
	}
	bad.Join(nil)
	return n, release, nil
}
