package conformance_test

// Executor faults that one case of schedCases (cases_sched.go) was written
// to catch, each shown caught by that case alone: a fault that makes waits
// hang may be caught by an earlier case of the suite now and then too,
// which TestBrokenExecutor's first-failure check would take for a miss.

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kcbench/kcbench/conformance"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestBrokenEarlyClose is not parallel, for the reason TestBrokenClose
// is not: GoroutinesGoneAtClose counts the process's goroutines.
func TestBrokenEarlyClose(t *testing.T) {
	checkCaughtBy(t, func() kc.Executor { return &earlyClose{Executor: goroutine.New()} }, "GoroutinesGoneAtClose")
}

func TestBrokenExecutorSched(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ex   func() kc.Executor
		want string // the case that must fail
		// parallel: the fault shows only when two goroutines run at
		// once (a wake landing inside a Park), which needs two Ps.
		parallel bool
	}{
		{"SuspendAfterWakeLost", func() kc.Executor { return &lateWakeSuspend{Executor: goroutine.New()} }, "WakeDuringPark", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.parallel && runtime.GOMAXPROCS(0) < 2 {
				t.Skip("the fault needs two goroutines running at once; GOMAXPROCS is 1")
			}
			t.Parallel()
			checkCaughtBy(t, tc.ex, tc.want)
		})
	}
}

// checkCaughtBy fails t unless the case named want, run alone on a
// runtime over ex(), fails.
func checkCaughtBy(t *testing.T, ex func() kc.Executor, want string) {
	t.Helper()
	var c *conformance.Case
	for _, x := range conformance.Cases() {
		if x.Name == want {
			c = &x
		}
	}
	if c == nil {
		t.Fatalf("no case %s", want)
	}
	r := conformance.RunCases(func() (*kc.Runtime, error) { return kc.New(ex()), nil }, []conformance.Case{*c}, brokenWatchdog)[0]
	if r.Err == nil {
		t.Fatalf("%s passed a broken runtime; want a failure", want)
	}
	checkNamed(t, r)
}

// lateWakeSuspend hands every wait that is not quick off with
// kc.Parker.Suspend after a pause, as a backend does that suspends its
// task's coroutine and switches to a driver, and treats a Suspend that
// reported false (the wake came first) as if it had suspended, unless the
// wake had come before Park: a wake that lands during the hand-off is lost,
// and the waiter waits for a Resume that never comes. It is the bug of a
// vcore driver that ignores Suspend's false (drive in runtimes/vcore/ctx.go).
type lateWakeSuspend struct{ *goroutine.Executor }

func (*lateWakeSuspend) Park(p *kc.Parker) {
	if p.Quick() {
		p.Wait()
		return
	}
	woken := p.Spin() // not quick: it only reports whether the wake has come
	for t0 := time.Now(); time.Since(t0) < 300*time.Nanosecond; {
		// the switch to a driver
	}
	r := make(resumeChan, 1)
	if p.Suspend(r) {
		<-r
		return
	}
	if !woken {
		select {} // the bug: the wake that landed during the hand-off is lost
	}
}

// resumeChan is a kc.Resumer that a waiter blocks on.
type resumeChan chan struct{}

func (r resumeChan) Resume() { r <- struct{}{} }

// earlyCloseExit is how long an earlyClose goroutine takes to exit once
// told to: longer than Close's return takes to reach the count, far
// shorter than NoGoroutineLeft's grace.
const earlyCloseExit = 50 * time.Millisecond

// earlyClose keeps idle pooled goroutines (as backends keep idle workers)
// and ends them in Close, but returns without waiting for them to exit:
// each takes a moment on its way out (earlyCloseExit, as a worker that
// flushes its state does), and is gone in time for NoGoroutineLeft's two
// seconds.
type earlyClose struct {
	*goroutine.Executor
	once sync.Once
	quit chan struct{}
}

func (e *earlyClose) Spawn(t *kc.Task) {
	e.once.Do(func() {
		e.quit = make(chan struct{})
		for range 16 {
			go func() {
				<-e.quit
				time.Sleep(earlyCloseExit)
			}()
		}
	})
	e.Executor.Spawn(t)
}

func (e *earlyClose) Close() error {
	err := e.Executor.Close()
	e.once.Do(func() {}) // no Spawn: no pool
	if e.quit != nil {
		close(e.quit) // the bug: no wait for the pool to exit
	}
	return err
}
