package conformance

import (
	"bytes"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// schedCases hold the backends to scheduler contract points that a
// mutation round of the vcore and stealing backends found unguarded:
// each rejects a mutant (a plausible backend bug) that every other case
// let through, or caught only now and then.
func schedCases() []Case {
	return []Case{
		mk("WakeDuringPark", "05 park/unpark: a wake that lands while Park hands the wait off is not lost", wakeDuringPark),
		mk("GoroutinesGoneAtClose", "05 Shutdown / draining; DESIGN Backends: no goroutine left after Close, as Close returns", goroutinesGoneAtClose),
	}
}

// wakeSweepSteps and wakeSweepStep set the moments WakeDuringPark wakes
// its joiner at: 0 to 4µs after the joiner registered, in steps of 100ns.
const (
	wakeSweepSteps = 41
	wakeSweepStep  = 100 * time.Nanosecond
)

// wakeDuringParkBudget is how long WakeDuringPark repeats its rounds (at
// least wakeSweepSteps of them): the wake lands inside a backend's hand-off
// in a small fraction of them.
const wakeDuringParkBudget = time.Second

// Each round a fresh job (an owner of a core, on a backend that has
// them) joins its running child, which ends a little after the joiner is
// about to register: at once in the first round, then later by a step each
// round, sweeping the child's end (the wake) across the joiner's Park,
// including the moment where a backend hands the wait off (it suspends
// the joiner's coroutine with kc.Parker.Suspend, which reports false when
// the wake came first). The joiner first waits, with WaitAll, for the
// child to start, so that its Join does not run the child inline.
// EarlyWake wakes its waiters as they register, before that moment, and
// from a job that mostly has no core of its own by then; a backend that
// treats a Suspend that reported false as suspended loses the wake here,
// and the Join never returns (the case then hangs).
func wakeDuringPark(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		done, err := kc.NewChan[struct{}](1)
		if !p.noErr("NewChan", err) {
			return nil
		}
		end := time.Now().Add(wakeDuringParkBudget)
		for round := 0; round < wakeSweepSteps || time.Now().Before(end); round++ {
			delay := time.Duration(round%wakeSweepSteps) * wakeSweepStep
			w, err := j.Launch(func(w *kc.Job) error {
				defer done.TrySend(struct{}{})
				gate, release, ok := newGate(p, w)
				if !ok {
					return nil
				}
				var joining atomic.Bool // set just before the Join
				c, err := w.Launch(func(*kc.Job) error {
					release()
					// Until the join is about to register (bounded: a
					// round that misses is only a round lost), then
					// delay more.
					for i := 0; !joining.Load() && i < 1e6; i++ {
						if i%64 == 63 {
							runtime.Gosched()
						}
					}
					for t0 := time.Now(); time.Since(t0) < delay; {
					}
					return nil
				})
				if !p.job("Launch", c, err) {
					release()
					return nil
				}
				p.noErr("WaitAll of the gate the child opens as it starts", gate.WaitAll(-1))
				joining.Store(true)
				p.noErr("Join of a child that ends as the join parks", c.Join(w))
				return nil
			})
			if !p.job("Launch", w, err) {
				return nil
			}
			if _, err := done.Recv(j); !p.noErr("Recv of the round's end", err) {
				return nil
			}
			if !p.noErr("Join of the round's joiner", w.Join(j)) {
				return nil
			}
		}
		return nil
	}))
}

// closeSlack is how many goroutines more than before the case
// GoroutinesGoneAtClose lets Close leave: goroutines that have signalled
// their end to Close and are returning (a thread descheduled there), or
// a finalizer running meanwhile. A Close that returns while its workers
// are still on their way out leaves dozens.
const closeSlack = 2

// Close returns only once every goroutine the runtime started has exited
// (kc.Executor.Close, DESIGN "Backends"), after tasks slept, parked in
// joins, blocked on a Go channel beyond the workers (so temporary workers
// came), timed out and were cancelled. NoGoroutineLeft gives stragglers
// two seconds; this case counts as Close returns, so a Close that stops
// its workers but waits for them on a goroutine of its own (or not at
// all) fails here, though they are gone a moment later.
func goroutinesGoneAtClose(rt *kc.Runtime, p *probe) {
	settledGoroutines()
	base := goroutinesNow()
	err := rt.Run(ctx, func(j *kc.Job) error {
		n := blockers()
		started, release := make(chan struct{}, n), make(chan struct{})
		for range n {
			if _, err := j.Launch(func(*kc.Job) error { started <- struct{}{}; <-release; return nil }); !p.noErr("Launch blocker", err) {
				close(release)
				return nil
			}
		}
		for range n {
			<-started // all of them are blocked at once
		}
		close(release)
		var prev *kc.Job
		for range 20 {
			before := prev // each sleeper joins the one launched before it
			c, err := j.Launch(func(c *kc.Job) error {
				if before != nil {
					if err := before.Join(c); err != nil {
						return err
					}
				}
				return c.Sleep(time.Hour)
			})
			if !p.job("Launch sleeper", c, err) {
				break
			}
			prev = c
		}
		_, err := j.Launch(sleeper, kc.Detached())
		p.noErr("Launch Detached()", err)
		p.is("WithTimeout", j.WithTimeout(time.Millisecond, sleeper), kc.ErrTimeout)
		j.Cancel(nil)
		return nil
	})
	p.is("Run of a cancelled root", err, kc.ErrCancelled)
	p.noErr("Close", rt.Close())
	if n := goroutinesNow(); n > base+closeSlack {
		p.failf("goroutines as Close returned: got %d; want at most %d (%d before the case, %d on their way out)", n, base+closeSlack, base, closeSlack)
	}
}

// goroutinesNow counts the goroutines that runtime.Stack lists (those
// NumGoroutine counts), in one stop of the world: NumGoroutine reads
// per-P counters without one, and while goroutines end on other Ps it
// can count a batch of dead ones moving between free lists as alive
// (tens at once, now and then).
func goroutinesNow() int {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return bytes.Count(buf[:n], []byte("\ngoroutine ")) + 1
		}
		buf = make([]byte, 2*len(buf))
	}
}
