// Package kcload holds job-tree workloads that the tests of more than one
// backend run: root bodies for kc.Runtime.Run, each driving a backend
// through one pattern of parks and wakes round after round, and counting
// its progress for a watchdog's message.
package kcload

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// JoinRounds returns a root body that launches an empty child into a
// nursery and Joins it, rounds times, adding 1 to done after each Join.
// The child goes through the executor (it is the nursery's, not the
// joiner's, so the Join does not run it inline), so every round parks the
// body once and wakes it once, in turn with the child's run: the latency
// op of JobCreate.
func JoinRounds(rounds int, done *atomic.Int64) kc.Func {
	return func(j *kc.Job) error {
		nur, err := j.Open()
		if err != nil {
			return err
		}
		for range rounds {
			c, err := nur.Launch(func(*kc.Job) error { return nil })
			if err != nil {
				return err
			}
			if err := c.Join(j); err != nil {
				return err
			}
			done.Add(1)
		}
		return nur.AwaitAll(j)
	}
}

// WakeRounds returns a root body that, rounds times, runs a Scope in which
// n children Await a deferred that completes a millisecond after it starts;
// on an executor with one worker that is long after they have parked, so
// that its end wakes them all at once. It adds 1 to woken per Await that returned the deferred's
// value.
func WakeRounds(rounds, n int, woken *atomic.Int64) kc.Func {
	return func(j *kc.Job) error {
		for range rounds {
			err := j.Scope(func(s *kc.Job) error {
				d, err := kc.Async(s, func(d *kc.Job) (int, error) { return 1, d.Sleep(time.Millisecond) })
				if err != nil {
					return err
				}
				for range n {
					if _, err := s.Launch(func(c *kc.Job) error {
						if v, err := d.Await(c); err != nil || v != 1 {
							return fmt.Errorf("Await: %v, %v; want 1, nil", v, err)
						}
						woken.Add(1)
						return nil
					}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// Resumes counts the resumes of a backend's parked tasks by who made
// them: the driver goroutine (Direct) or a coroutine of the backend that
// runs the resumed one nested under it (Nested). Its Note is what a
// backend's test hook for resumes is set to.
type Resumes struct {
	Direct, Nested atomic.Int64
}

// Note counts one resume.
func (r *Resumes) Note(nested bool) {
	if nested {
		r.Nested.Add(1)
	} else {
		r.Direct.Add(1)
	}
}
