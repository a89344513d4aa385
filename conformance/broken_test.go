package conformance_test

// The suite is only worth running if it catches bugs. These tests build
// deliberately broken runtimes — a sound core on a broken executor here, the
// core with one fault switched on in broken_core_test.go (built with the
// kcfaults tag) — and check that the suite rejects each of them, naming a
// case that is meant to catch it (like testing/fstest's tests against
// broken file systems).

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcbench/kcbench/conformance"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// brokenWatchdog is the watchdog for cases run against broken runtimes:
// several faults make a case hang, and each hang costs this long.
const brokenWatchdog = 5 * time.Second

// firstFailure runs the suite's cases in order, each under brokenWatchdog,
// and stops at the first failure: it returns that case's Result and whether
// there was one. Test would report the same failure (it runs the same cases
// the same way); stopping early keeps a runtime that hangs every case from
// costing a watchdog per case. A failure of a case that is not in want is
// run once more first, on a fresh runtime: if it passes then, it was the
// machine (a call that outlasted the suite's stall bound on a loaded
// host), not the fault, and the search goes on; the fault itself fails
// such a case again.
func firstFailure(t *testing.T, newRuntime func() (*kc.Runtime, error), want []string) (conformance.Result, bool) {
	for _, c := range conformance.Cases() {
		r := conformance.RunCases(newRuntime, []conformance.Case{c}, brokenWatchdog)[0]
		if r.Err != nil && !slices.Contains(want, c.Name) {
			again := conformance.RunCases(newRuntime, []conformance.Case{c}, brokenWatchdog)[0]
			if again.Err == nil {
				t.Logf("%s failed once and then passed; taken as load: %.200v", c.Name, r.Err)
				continue
			}
		}
		if r.Err != nil {
			return r, true
		}
	}
	return conformance.Result{}, false
}

// wantedReruns is how many more runs rerunWanted gives the wanted cases.
const wantedReruns = 5

// rerunWanted runs the cases named in want up to wantedReruns more times
// each, and returns the first failure. A case that catches its fault by
// racing it (OnCancelWhenCancelMeetsFinish lands a Cancel in the few
// nanoseconds in which a job is finishing) misses it in some runs, more
// often while the other self-tests load the machine: the self-test asks
// that the case can catch the fault, which a case that never does still
// fails.
func rerunWanted(newRuntime func() (*kc.Runtime, error), want []string) (conformance.Result, bool) {
	for range wantedReruns {
		for _, c := range conformance.Cases() {
			if !slices.Contains(want, c.Name) {
				continue
			}
			if r := conformance.RunCases(newRuntime, []conformance.Case{c}, brokenWatchdog)[0]; r.Err != nil {
				return r, true
			}
		}
	}
	return conformance.Result{}, false
}

// checkCaught fails t unless the suite rejects newRuntime, and unless the
// first case to fail is one of want (the cases written to catch that bug,
// in suite order; an earlier one may catch it as a side effect, so any of
// them is accepted) and its error starts with the case's name.
func checkCaught(t *testing.T, newRuntime func() (*kc.Runtime, error), want ...string) {
	t.Helper()
	r, failed := firstFailure(t, newRuntime, want)
	if !failed {
		r, failed = rerunWanted(newRuntime, want)
	}
	if !failed {
		t.Fatalf("suite passed a broken runtime; want a failure of %s (also in %d more runs of those cases)", strings.Join(want, " or "), wantedReruns)
	}
	if !slices.Contains(want, r.Case) {
		t.Errorf("first failing case = %s (%v); want one of %s", r.Case, r.Err, strings.Join(want, ", "))
	}
	checkNamed(t, r)
}

// checkNamed checks that the failure r starts with its case's name, and
// logs it.
func checkNamed(t *testing.T, r conformance.Result) {
	t.Helper()
	if !strings.HasPrefix(r.Err.Error(), r.Case+": ") {
		t.Errorf("error %q does not start with the case name %q", r.Err, r.Case)
	}
	t.Logf("caught by %s: %.200v", r.Case, r.Err)
}

// TestBrokenClose is not parallel, so it runs alone and before the parallel
// tests (TestBrokenCore, TestBrokenExecutor) have abandoned hung cases whose
// goroutines could still come and go: NoGoroutineLeft counts the process's
// goroutines.
func TestBrokenClose(t *testing.T) {
	checkCaught(t, func() (*kc.Runtime, error) { return kc.New(&leakyClose{Executor: goroutine.New()}), nil },
		"NoGoroutineLeft", "GoroutinesGoneAtClose")
}

// The executor faults: a sound core on an executor that breaks its contract.
func TestBrokenExecutor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ex   func() kc.Executor
		want []string
	}{
		{"TimersNeverFire", func() kc.Executor { return &deafTimers{Executor: goroutine.New()} },
			[]string{"TimeoutFiresFirst"}},
		{"LostWake", func() kc.Executor { return &lossyPark{Executor: goroutine.New()} },
			[]string{"ScopeThreeChildren"}},
		{"CoalescingTimers", func() kc.Executor { return &coalescingTimers{Executor: goroutine.New()} },
			[]string{"SleepNeverEarly"}},
		{"LateTimers", func() kc.Executor { return &lateTimers{Executor: goroutine.New()} },
			[]string{"BodyLeavesThreadLocked", "TimerLatency"}}, // the first sleeps in a loop: 300ms a sleep outlasts its watchdog
		// The core counts each armed timer until its call or a Stop that
		// prevented it; a second such event fails Close with
		// ErrBrokenExecutor (it used to panic on the timer's goroutine).
		{"TimersFireTwice", func() kc.Executor { return &twiceTimers{Executor: goroutine.New()} },
			[]string{"TimeoutFiresFirst", "ShieldCancelInside"}},
		{"StopTrueAfterFire", func() kc.Executor { return &lyingStop{Executor: goroutine.New()} },
			[]string{"TimeoutFiresFirst", "ShieldCancelInside"}},
		{"FixedPoolNoCompensation", func() kc.Executor { return newFixedPool(2) },
			[]string{"ScopeThreeChildren", "ChildFailureCancelsSiblings", "DeepScopes", "JoinChain", "BlockingGoChannel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkCaught(t, func() (*kc.Runtime, error) { return kc.New(tc.ex()), nil }, tc.want...)
		})
	}
}

// deafTimers never fires an AfterFunc: timeouts and sleeps never end on
// their own.
type deafTimers struct{ *goroutine.Executor }

func (*deafTimers) AfterFunc(time.Duration, func()) kc.Timer { return deafTimer{} }

type deafTimer struct{}

func (deafTimer) Stop() bool { return true }

// twiceTimers calls every AfterFunc callback twice in a row.
type twiceTimers struct{ *goroutine.Executor }

func (*twiceTimers) AfterFunc(d time.Duration, f func()) kc.Timer {
	return time.AfterFunc(d, func() { f(); f() })
}

// lyingStop's Stop reports true, that it prevented the call, even when
// the callback has run.
type lyingStop struct{ *goroutine.Executor }

func (*lyingStop) AfterFunc(d time.Duration, f func()) kc.Timer {
	return lyingTimer{time.AfterFunc(d, f)}
}

type lyingTimer struct{ t *time.Timer }

func (l lyingTimer) Stop() bool { l.t.Stop(); return true }

// lateTimers fires every AfterFunc 300ms late, as a backend whose timer
// queue is only polled by a slow monitor would: every timeout and sleep
// still ends, only late.
type lateTimers struct{ *goroutine.Executor }

func (*lateTimers) AfterFunc(d time.Duration, f func()) kc.Timer {
	return time.AfterFunc(d+300*time.Millisecond, f)
}

// coalescingTimers fires, with each timer, every pending timer due within
// coalesceSlack of it, as a backend that batches the timers near the one
// that fell due would: a lone timer fires on time, but of many short ones
// armed together some fire early.
type coalescingTimers struct {
	*goroutine.Executor
	mu      sync.Mutex
	pending map[*coalescedTimer]struct{} // under mu
}

const coalesceSlack = 500 * time.Microsecond

type coalescedTimer struct {
	e    *coalescingTimers
	when time.Time
	f    func()
	once sync.Once
	t    *time.Timer
}

func (e *coalescingTimers) AfterFunc(d time.Duration, f func()) kc.Timer {
	c := &coalescedTimer{e: e, when: time.Now().Add(d), f: f}
	e.mu.Lock()
	if e.pending == nil {
		e.pending = make(map[*coalescedTimer]struct{})
	}
	e.pending[c] = struct{}{}
	e.mu.Unlock()
	c.t = time.AfterFunc(d, c.fire)
	return c
}

// fire runs c and every pending timer due within coalesceSlack of now.
func (c *coalescedTimer) fire() {
	now := time.Now()
	c.e.mu.Lock()
	var due []*coalescedTimer
	for o := range c.e.pending {
		if o == c || o.when.Sub(now) <= coalesceSlack {
			due = append(due, o)
			delete(c.e.pending, o)
		}
	}
	c.e.mu.Unlock()
	for _, o := range due {
		o.once.Do(o.f)
	}
}

func (c *coalescedTimer) Stop() bool {
	c.e.mu.Lock()
	_, ok := c.e.pending[c]
	delete(c.e.pending, c)
	c.e.mu.Unlock()
	c.t.Stop()
	return ok
}

// leakyClose starts a helper goroutine on its first Spawn (as a backend
// might start a monitor lazily) and forgets to stop it in Close.
type leakyClose struct {
	*goroutine.Executor
	once sync.Once
	stop chan struct{} // never closed: the bug
}

func (e *leakyClose) Spawn(t *kc.Task) {
	e.once.Do(func() {
		e.stop = make(chan struct{})
		go func() { <-e.stop }()
	})
	e.Executor.Spawn(t)
}

// lossyPark loses every second wake, as a backend whose bookkeeping after
// the wake drops the woken task would: Park waits for the wake, then
// blocks forever.
type lossyPark struct {
	*goroutine.Executor
	mu sync.Mutex
	n  int
}

func (e *lossyPark) Park(p *kc.Parker) {
	e.mu.Lock()
	e.n++
	lose := e.n%2 == 0
	e.mu.Unlock()
	p.Wait()
	if lose {
		select {} // the bug
	}
}

// fixedPool runs tasks on a fixed number of worker goroutines and does not
// compensate for a worker blocked in Park: once every worker waits for a
// task still in the queue, nothing runs again.
type fixedPool struct {
	mu    sync.Mutex
	cond  sync.Cond
	queue []*kc.Task // under mu
	quit  bool       // under mu
	wg    sync.WaitGroup
}

func newFixedPool(workers int) *fixedPool {
	e := &fixedPool{}
	e.cond.L = &e.mu
	for range workers {
		e.wg.Go(e.work)
	}
	return e
}

func (e *fixedPool) work() {
	for {
		e.mu.Lock()
		for len(e.queue) == 0 && !e.quit {
			e.cond.Wait()
		}
		if len(e.queue) == 0 {
			e.mu.Unlock()
			return
		}
		t := e.queue[0]
		e.queue = e.queue[1:]
		e.mu.Unlock()
		t.Run()
	}
}

func (e *fixedPool) Spawn(t *kc.Task) {
	e.mu.Lock()
	e.queue = append(e.queue, t)
	e.mu.Unlock()
	e.cond.Signal()
}

func (*fixedPool) Park(p *kc.Parker) { p.Wait() }

func (*fixedPool) AfterFunc(d time.Duration, f func()) kc.Timer { return time.AfterFunc(d, f) }

func (e *fixedPool) Close() error {
	e.mu.Lock()
	e.quit = true
	e.mu.Unlock()
	e.cond.Broadcast()
	e.wg.Wait()
	return nil
}
