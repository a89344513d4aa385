package conformance

import (
	"fmt"
	"sync"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// sleepNeverEarlySleepers is how many sleepers SleepNeverEarly runs at
// once, their durations staggered by sleepNeverEarlyStep from
// sleepNeverEarlyStep up.
const (
	sleepNeverEarlySleepers = 24
	sleepNeverEarlyStep     = 53 * time.Microsecond
	sleepNeverEarlyRounds   = 3
)

// No Sleep returns before its duration has passed, also when many short
// timers fall due close together: an executor that fires a timer with its
// neighbours (coalescing timers due within some slack of each other, or of
// the one that fired) wakes some sleepers early. Each sleeper reads the
// clock before it calls Sleep, so the time it measures can only be longer
// than the sleep.
func sleepNeverEarly(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		for round := range sleepNeverEarlyRounds {
			var mu sync.Mutex
			var early []string
			err := j.Scope(func(s *kc.Job) error {
				for i := range sleepNeverEarlySleepers {
					d := time.Duration(i+1) * sleepNeverEarlyStep
					if _, err := s.Launch(func(c *kc.Job) error {
						start := time.Now()
						if err := c.Sleep(d); err != nil {
							return err
						}
						if got := time.Since(start); got < d {
							mu.Lock()
							early = append(early, fmt.Sprintf("Sleep(%v) returned after %v", d, got))
							mu.Unlock()
						}
						return nil
					}); err != nil {
						return err
					}
				}
				return nil
			})
			if !p.noErr("Scope of sleepers", err) {
				return nil
			}
			if len(early) > 0 {
				p.failf("round %d: %d of %d sleeps returned early, e.g. %s", round, len(early), sleepNeverEarlySleepers, early[0])
				return nil
			}
		}
		return nil
	}))
}

// sleepNotLateD is the sleep SleepNotLate measures, and sleepNotLateSlack
// how much longer than it the fastest of sleepNotLateTries may take.
const (
	sleepNotLateD     = 30 * time.Millisecond
	sleepNotLateSlack = sleepNotLateD / 4
	sleepNotLateTries = 5
)

// A Sleep returns soon after its duration: the fastest of a few tries of
// Sleep(30ms) within a quarter more. An executor whose timers fire a
// fraction of their duration late (a duration scaled or rounded up to a
// coarse step, a timer armed for the wrong span) fails; the slack is
// there for a loaded machine, and TimerLatency bounds the lateness of
// short timers.
func sleepNotLate(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		best := time.Duration(1<<63 - 1)
		for range sleepNotLateTries {
			start := time.Now()
			if !p.noErr("Sleep", j.Sleep(sleepNotLateD)) {
				return nil
			}
			if best = min(best, time.Since(start)); best <= sleepNotLateD+sleepNotLateSlack {
				return nil
			}
		}
		p.failf("Sleep(%v): the fastest of %d took %v; want at most %v", sleepNotLateD, sleepNotLateTries, best, sleepNotLateD+sleepNotLateSlack)
		return nil
	}))
}
