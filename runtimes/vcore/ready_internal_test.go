package vcore

import (
	"errors"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// A body that launches a child into a nursery and joins it, one at a
// time, parks at each join; the core's next owner runs the child, whose
// end puts the joiner, alone, on that core's ready queue. The other
// core's spinner must leave it there (poll takes another core's ready
// context only from a queue of two or more), or the op moves to the
// other core. Every wakeEvery ops a goroutine outside the runtime
// launches two empty children, which go to hashed inboxes and wake their
// cores' owners, so that the other core's owner spins during the ops
// that follow. A poll that steals lone contexts takes a good share of
// the joiners (the op moving each time, and the spinner never running
// dry); with the rule each wake costs a few steals: the children, and the
// lone joiner if the spinner's last look before it sleeps (stealReady)
// finds one. The bound, n/25, sits between the two. It needs ops far
// shorter than the spin budget (20 µs); under the race detector an op
// takes about as long, so the last look often finds the joiner, and the
// test does not run.
func TestLoneReadyStaysHome(t *testing.T) {
	if goruntime.RaceEnabled {
		t.Skip("under the race detector an op lasts about a spin budget")
	}
	const n, wakeEvery = 5000, 500
	ex := runOnContexts(t, func(j *kc.Job) error {
		nur, err := j.Open()
		if err != nil {
			return err
		}
		empty := func(*kc.Job) error { return nil }
		for i := range n {
			if i%wakeEvery == 0 {
				errs := make(chan error)
				go func() {
					_, err1 := nur.Launch(empty)
					_, err2 := nur.Launch(empty)
					errs <- errors.Join(err1, err2)
				}()
				if err := <-errs; err != nil {
					return err
				}
			}
			c, err := nur.Launch(empty)
			if err != nil {
				return err
			}
			if err := c.Join(j); err != nil {
				return err
			}
		}
		return nur.AwaitAll(j)
	}, Workers(2), noRetake)
	st := ex.Stats()
	if st.Suspends < n/2 {
		t.Fatalf("Stats: %+v; want most of the %d joins suspended", st, n)
	}
	if st.Steals > n/25 {
		t.Errorf("%d launch-and-join ops: %d steals; want at most %d (Stats: %+v)", n, st.Steals, n/25, st)
	}
}

// A context woken onto the ready queue of a core whose owner is stuck in
// a body (a Go channel wait, which the runtime cannot see) is alone
// there, so poll leaves it to that owner; the owner that Resume's kick
// wakes must take it at its last look before it sleeps (stealReady). With
// sysmon's retake out of the way (noRetake), nothing else would: the
// stuck body waits for the woken one. The root sleeps so that the
// sleeper has parked on the root's core, then runs the blocker inline
// (Join of its unstarted child), which leaves that core stuck until the
// sleeper closes the channel.
func TestLoneReadyTakenBeforeSleep(t *testing.T) {
	ex := runOnContexts(t, func(j *kc.Job) error {
		for range 5 {
			ch := make(chan struct{})
			if _, err := j.Launch(func(c *kc.Job) error {
				if err := c.Sleep(5 * time.Millisecond); err != nil {
					return err
				}
				close(ch)
				return nil
			}); err != nil {
				return err
			}
			if err := j.Sleep(time.Millisecond); err != nil {
				return err
			}
			b, err := j.Launch(func(*kc.Job) error { <-ch; return nil })
			if err != nil {
				return err
			}
			if err := b.Join(j); err != nil {
				return err
			}
		}
		return nil
	}, Workers(2), noRetake)
	if st := ex.Stats(); st.Retakes != 0 || st.Steals == 0 {
		t.Errorf("Stats: %+v; want no retake (noRetake) and steals (the woken sleepers)", st)
	}
}

// poll takes the head of another core's ready queue only when the queue
// holds more than one context; stealReady, an owner's last look before it
// sleeps, takes a lone one too. The executor's owners have not started,
// so nobody else pops the queues; the contexts are never run.
func TestPollLeavesLoneReady(t *testing.T) {
	ex, err := New(Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer closeExecutor(t, ex)
	thief, home := &ex.cores[0], &ex.cores[1]
	w := testWorker(1)
	a, b := new(ctx), new(ctx)

	home.ready.push(a)
	if task, r := ex.poll(w, thief); task != nil || r != nil {
		t.Errorf("poll with a lone context on another core's ready queue: got %v, %p; want nothing", task, r)
	}
	if r := ex.stealReady(thief); r != a {
		t.Errorf("stealReady of a lone context: got %p; want %p", r, a)
	}

	home.ready.push(a)
	home.ready.push(b)
	if _, r := ex.poll(w, thief); r != a {
		t.Errorf("poll with two contexts on another core's ready queue: got %p; want the first, %p", r, a)
	}
	if _, r := ex.poll(w, thief); r != nil {
		t.Errorf("poll with one context left: got %p; want nothing", r)
	}
	if _, r := ex.poll(w, home); r != b {
		t.Errorf("poll of its own core with one ready context: got %p; want %p", r, b)
	}
	if st := ex.Stats(); st.Steals != 2 {
		t.Errorf("Stats.Steals: got %d; want 2 (stealReady, and poll's steal from a queue of two)", st.Steals)
	}
}
