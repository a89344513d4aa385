package vcore

import (
	"context"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/sleepq"
	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

func needGKeys(t *testing.T) {
	t.Helper()
	if !regByG {
		t.Skip("short timers are spun for only with goroutine registry keys")
	}
}

// runRoot runs body as the root job of a runtime on ex and closes it.
func runRoot(t *testing.T, ex *Executor, body kc.Func) {
	t.Helper()
	rt := kc.New(ex)
	testutil.Watchdog(t, 20*time.Second, func() {
		if err := rt.Run(context.Background(), body); err != nil {
			t.Error(err)
		}
		if err := rt.Close(); err != nil {
			t.Error(err)
		}
	})
}

// Short sleeps of an owner with nothing else to do are waited for
// spinning: the owner keeps its core instead of handing it off at each.
// The sleep is long enough for Park to come before the timer fires (a
// wake before Park is no spin), and the spin budget far longer, which
// leaves the timer ample time to fire on a loaded machine; a sleep or two
// may still go another way, hence the half.
func TestShortSleepKeepsCore(t *testing.T) {
	needGKeys(t)
	ex, err := New(Workers(2), Spin(MaxSpin))
	if err != nil {
		t.Fatal(err)
	}
	const n, d = 100, 200 * time.Microsecond
	runRoot(t, ex, func(j *kc.Job) error {
		for range n {
			if err := j.Sleep(d); err != nil {
				return err
			}
		}
		return nil
	})
	if st := ex.Stats(); st.TimerWaits < n/2 || st.Handoffs > n/2 {
		t.Errorf("after %d sleeps of %v: TimerWaits %d, Handoffs %d; want most sleeps waited for with the core kept", n, d, st.TimerWaits, st.Handoffs)
	}
}

// A task queued for the core is not held up by a short sleep: the sleeper
// hands the core off instead of spinning. The child launched before the
// sleep sits in the core's next slot, which only the core's owner takes
// (sysmon would move it after a tick, long after the 1 ms sleep began).
// A run can also count a timer wait without any spin: when the OS
// deschedules the sleeper's thread in Park, after its spin for a partner
// and before awaitTimer looks, until the timer has fired, awaitTimer finds
// the wait woken and keeps the core at once (a loaded machine does that
// about once in two thousand runs). A sleeper that spun while work waited
// would do so in every run, so a run with a timer wait is done again, up
// to three runs.
func TestShortSleepYieldsToWork(t *testing.T) {
	needGKeys(t)
	const runs = 3
	for run := 1; ; run++ {
		ex, err := New(Workers(1), Spin(MaxSpin))
		if err != nil {
			t.Fatal(err)
		}
		runRoot(t, ex, func(j *kc.Job) error {
			return j.Scope(func(s *kc.Job) error {
				if _, err := s.Launch(func(*kc.Job) error { return nil }); err != nil {
					return err
				}
				return s.Sleep(time.Millisecond)
			})
		})
		st := ex.Stats()
		if st.TimerWaits == 0 && st.Handoffs != 0 {
			return
		}
		if run == runs {
			t.Errorf("sleep with a child queued, in each of %d runs: TimerWaits %d, Handoffs %d in the last; want a hand-off and no spin", runs, st.TimerWaits, st.Handoffs)
			return
		}
		t.Logf("run %d: TimerWaits %d, Handoffs %d; running again", run, st.TimerWaits, st.Handoffs)
	}
}

// AfterFunc notes the due time of an owner's timer only when it is within
// the spin budget.
func TestAfterFuncNotesShortTimers(t *testing.T) {
	needGKeys(t)
	ex, err := New(Workers(1), Spin(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	noop := func() {}
	runRoot(t, ex, func(j *kc.Job) error {
		w := ex.reg.self()
		if w == nil {
			t.Error("the root's goroutine is not a registered owner")
			return nil
		}
		ex.AfterFunc(time.Hour, noop).Stop()
		if w.due != 0 {
			t.Errorf("due after an hour's timer: %d; want 0 (not spun for)", w.due)
		}
		before := sleepq.Now()
		ex.AfterFunc(100*time.Microsecond, noop).Stop()
		if d := w.due - before; d < int64(100*time.Microsecond) || d > int64(time.Hour) {
			t.Errorf("due after a 100µs timer: %v from before the call; want 100µs and a little", time.Duration(d))
		}
		w.due = 0
		return nil
	})
}

// awaitTimer's exits, on a core set up by hand: no short timer, a timer
// beyond the budget (an hour: spinning for it would hang the test until
// the watchdog), work queued, the core taken, and a timer whose wake never
// comes (the zero Parker is never woken).
func TestAwaitTimerExits(t *testing.T) {
	ex, err := New(Workers(1), Spin(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	c := &ex.cores[0]
	w := testWorker(ex.newID())
	w.core, w.role = c, roleOwner
	c.word.Store(mkword(w.id.Load(), coreRunning))
	defer c.word.Store(mkword(0, coreFree))
	var p kc.Parker // never woken

	cases := []struct {
		name string
		due  func() int64
		prep func()
		undo func()
		want sleepq.ShortWait
	}{
		{"no timer", func() int64 { return 0 }, nil, nil, sleepq.ShortNone},
		{"an hour away", func() int64 { return sleepq.Now() + int64(time.Hour) }, nil, nil, sleepq.ShortNone},
		{"work queued", func() int64 { return sleepq.Now() + int64(500*time.Microsecond) },
			func() { c.inbox.push(new(kc.Task)) }, func() { c.inbox.pop() }, sleepq.ShortBusy},
		{"core taken", func() int64 { return sleepq.Now() + int64(500*time.Microsecond) },
			func() { c.word.Store(mkword(w.id.Load()+1, coreRunning)) }, func() { c.word.Store(mkword(w.id.Load(), coreRunning)) }, sleepq.ShortBusy},
		{"never woken", func() int64 { return sleepq.Now() + int64(100*time.Microsecond) }, nil, nil, sleepq.ShortLate},
	}
	for _, tc := range cases {
		if tc.prep != nil {
			tc.prep()
		}
		w.due = tc.due()
		var got sleepq.ShortWait
		testutil.Watchdog(t, 10*time.Second, func() { got = ex.awaitTimer(w, &p) })
		if got != tc.want {
			t.Errorf("%s: awaitTimer gave %d; want %d", tc.name, got, tc.want)
		}
		if w.due != 0 {
			t.Errorf("%s: due %d after awaitTimer; want it consumed", tc.name, w.due)
		}
		if tc.undo != nil {
			tc.undo()
		}
	}
	if n := ex.Stats().TimerWaits; n != 0 {
		t.Errorf("TimerWaits %d with no wake; want 0", n)
	}
}
