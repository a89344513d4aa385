package conformance

import (
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
