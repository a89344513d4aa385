package stealing

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// holdExecutor is a kc.Executor that runs nothing: it hands each spawned
// task to the test, which gives it to the executor under test at a moment
// of its choosing. Park is the Parker's own semaphore.
type holdExecutor struct{ spawned chan *kc.Task }

func (h holdExecutor) Spawn(t *kc.Task)                           { h.spawned <- t }
func (holdExecutor) Park(p *kc.Parker)                            { p.Wait() }
func (holdExecutor) AfterFunc(d time.Duration, f func()) kc.Timer { return time.AfterFunc(d, f) }
func (holdExecutor) Close() error                                 { return nil }

// The interleaving of the lost wake-up TestWakeWithoutBackstop found, made
// deterministic with testHookWake (see wake). Two worker slots, one held by
// a worker stuck in a body that never looks at the queues, no monitor
// (with MaxExtra(0) it would still rescue the task: its unstick moves the
// task to the injector and wakes a worker). Spawn publishes a task and
// finds a slot free; in the window before its add, a worker going idle
// takes the free slot back (it saw the task); in the window before
// Spawn's undo, that worker ends another task and retires, since running
// (3, Spawn's provisional slot included) is over the target. Spawn must
// still get the task run.
func TestWakeOvershootRetire(t *testing.T) {
	testutil.NoLeak(t)
	e, err := New(Workers(2), withoutMonitor())
	if err != nil {
		t.Fatal(err)
	}
	hold := holdExecutor{spawned: make(chan *kc.Task, 1)}
	rt := kc.New(hold)
	ran := make(chan struct{})
	runErr := make(chan error, 1)
	go func() { runErr <- rt.Run(context.Background(), func(*kc.Job) error { close(ran); return nil }) }()
	task := <-hold.spawned

	e.sched.running.Add(1) // the stuck worker's slot
	var adds, undos int
	testHookWake = func(p hookPoint) {
		switch {
		case p == hookBeforeAdd && adds == 0:
			adds++
			e.sched.running.Add(1) // a worker going idle saw the task and takes its slot back
		case p == hookBeforeUndo && undos == 0:
			undos++
			if !e.retire() { // it ran another task and finds running over the target
				t.Errorf("retire with running at %d: false; want true", e.sched.running.Load()+1)
			}
		}
	}
	e.Spawn(task) // from outside any worker, like the stuck worker's Launch
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Errorf("the task did not run in 5s: a lost wake-up; %+v, hook calls: %d before add, %d before undo", Snapshot(e), adds, undos)
		testHookWake = nil
		e.wake() // a slot is free: this one is not lost, and the test can end
		<-ran
	}
	e.sched.running.Add(-1)
	if err := <-runErr; err != nil {
		t.Error(err)
	}
	rt.Close()
	e.Close()
	testHookWake = nil
	if adds != 1 || undos != 1 {
		t.Errorf("hook calls: %d before add, %d before undo; want 1 and 1 (the interleaving did not happen)", adds, undos)
	}
}

// A wake from a goroutine the executor does not count (here a plain
// goroutine; in a program, the caller of Run or a waker whose task has
// ended since) that is starting a worker as Close runs: the worker must
// be started before Close's wait, and be waited for, or never started.
// testHookStart holds the start between its closed check and its wg.Add
// while Close runs (testutil.CloseDuringStart).
func TestLateStartAndClose(t *testing.T) {
	testutil.NoLeak(t)
	e, err := New(Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	testutil.CloseDuringStart(t, func(f func()) { testHookStart = f },
		e.wake, // the slot is free and nobody spins: it starts a worker
		func() { e.Close() })
	if live, _, pooled := CoroCounts(e); live != 0 {
		t.Errorf("after Close: %d live loop coroutines (%d pooled); want 0", live, pooled)
	}
}

// A body that leaves its thread locked does not leave the lock to the
// next task of its loop coroutine: with one worker and no extra ones,
// both run on the same coroutine, one after the other.
func TestBodyLockEndsWithTask(t *testing.T) {
	if !goruntime.GOK {
		t.Skip("no goroutine identities: the loop runs on its driver's stack")
	}
	testutil.NoLeak(t)
	e, err := New(Workers(1), MaxExtra(0))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(e)
	defer rt.Close()
	var lockedInB atomic.Bool
	err = rt.Run(context.Background(), func(j *kc.Job) error {
		// One worker: the second launch runs first (LIFO), then the first.
		if _, err := j.Launch(func(*kc.Job) error { lockedInB.Store(goruntime.LockedOSThread()); return nil }); err != nil {
			return err
		}
		_, err := j.Launch(func(*kc.Job) error { runtime.LockOSThread(); return nil })
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if lockedInB.Load() {
		t.Error("a task ran with the thread lock the task before it left")
	}
}

// withoutMonitor is New's option for a test that must show a task run with
// no help from the monitor (which rescues queued work a worker missed).
func withoutMonitor() Option {
	return func(c *config) error { c.noMonitor = true; return nil }
}

// A task spawned from outside while the only worker, out of work, is about
// to give its slot back: Spawn finds every slot taken and wakes nobody, so
// the worker's look at the queues after it gave its slot back (the Dekker
// check against wake) must find the task. With no monitor to rescue it,
// a worker that went idle without that look leaves the task queued for
// ever.
func TestIdleLooksAgain(t *testing.T) {
	var fired atomic.Bool
	spawnLate(t, "the task spawned as the worker went idle", func(spawn func()) {
		testHookIdle = func() {
			if fired.CompareAndSwap(false, true) {
				spawn() // from outside, with the worker's slot still taken
			}
		}
	})
	testHookIdle = nil
	if !fired.Load() {
		t.Error("the worker never went idle (the hook was not called)")
	}
}

// spawnLate runs two one-task runtimes on an executor with one worker and
// no monitor: the first's task starts the worker, and arm installs the
// test hooks that spawn the second's task (spawn, from another goroutine,
// returning once Spawn has) at the moment under test. The second task
// must run: a 5 s watchdog fails the test naming what (a lost wake-up, or
// a hook that never ran), then wakes a worker or spawns the task itself so
// that the test can end.
func spawnLate(t *testing.T, what string, arm func(spawn func())) {
	t.Helper()
	testutil.NoLeak(t)
	e, err := New(Workers(1), withoutMonitor())
	if err != nil {
		t.Fatal(err)
	}
	hold := holdExecutor{spawned: make(chan *kc.Task, 2)}
	rtA, rtB := kc.New(hold), kc.New(hold)
	ranA, ranB := make(chan struct{}), make(chan struct{})
	runErr := make(chan error, 2)
	go func() { runErr <- rtA.Run(context.Background(), func(*kc.Job) error { close(ranA); return nil }) }()
	taskA := <-hold.spawned
	go func() { runErr <- rtB.Run(context.Background(), func(*kc.Job) error { close(ranB); return nil }) }()
	taskB := <-hold.spawned
	var spawnedB atomic.Bool
	arm(func() {
		spawned := make(chan struct{})
		go func() { e.Spawn(taskB); close(spawned) }()
		<-spawned
		spawnedB.Store(true)
	})
	e.Spawn(taskA) // starts the worker, which then runs out of work
	<-ranA
	select {
	case <-ranB:
	case <-time.After(5 * time.Second): // a watchdog: the task runs at once or never
		if !spawnedB.Load() {
			t.Errorf("%s: the hook that spawns it never ran in 5 s", what)
			e.Spawn(taskB)
		} else {
			t.Errorf("%s did not run in 5 s: a lost wake-up; %+v\n%s", what, Snapshot(e), DumpRings(e))
			e.wake() // the slot is free now: this wake starts a worker
		}
		<-ranB
	}
	for range 2 {
		if err := <-runErr; err != nil {
			t.Error(err)
		}
	}
	rtA.Close()
	rtB.Close()
	e.Close()
}

// A task spawned from outside just after the only worker, out of work,
// made its last look at the queues: the worker gave its slot back before
// that look (the Dekker pair with wake), so Spawn finds the slot free and
// wakes a worker. A worker that looks first and gives its slot back after
// has Spawn find every slot taken: nobody is woken, the worker goes idle,
// and with no monitor to rescue it the task stays queued for ever.
// testHookIdle marks the worker's idle path, and testHookNoWork spawns at
// the end of the next look that finds nothing.
func TestIdleGivesSlotBeforeLook(t *testing.T) {
	var idling, fired atomic.Bool
	spawnLate(t, "the task spawned just after the idle worker's last look", func(spawn func()) {
		testHookIdle = func() { idling.Store(true) }
		testHookNoWork = func() {
			if idling.CompareAndSwap(true, false) && fired.CompareAndSwap(false, true) {
				spawn() // from outside
			}
		}
	})
	testHookIdle, testHookNoWork = nil, nil
	if !fired.Load() {
		t.Error("the worker never made its idle look (the hook was not called)")
	}
}

// Goroutines call wake at once on an idle executor, round after round.
// The spinning token is taken by a CAS from 0, so however the calls
// interleave, each spinner started is counted once, and once the spinners
// have found nothing and gone idle both counters are back at 0. A token
// taken with a load and a store lets two wakers take it together: two
// spinners then count as one, the count ends below 0, and every later
// wake, which wakes only while the count is 0, is skipped. No monitor,
// which would hide that: its grants add to the count too.
func TestConcurrentWakesSettle(t *testing.T) {
	testutil.NoLeak(t)
	e, err := New(Workers(2), withoutMonitor())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const wakers, rounds = 2, 20000
	var done sync.WaitGroup
	var ready atomic.Int32
	end := time.Now().Add(2 * time.Second)
	for round := 0; round < rounds && time.Now().Before(end); round++ {
		// The wakers spin until both are there, then wake together.
		done.Add(wakers)
		ready.Store(0)
		for range wakers {
			go func() {
				defer done.Done()
				together(&ready, wakers)
				e.wake()
			}()
		}
		done.Wait()
		deadline := time.Now().Add(5 * time.Second)
		for {
			s := Snapshot(e)
			if s.Running == 0 && s.Spinning == 0 {
				break
			}
			if s.Spinning < 0 || s.Running < 0 || time.Now().After(deadline) {
				t.Fatalf("round %d: after concurrent wakes on an idle executor: %+v; want Running 0 and Spinning 0 once the spinners went idle", round, s)
			}
			runtime.Gosched()
		}
	}
}

// together counts the caller in ready and spins until n goroutines are
// counted, so that they go on at about the same moment; it yields now and
// then, so that with one P the others get to come.
func together(ready *atomic.Int32, n int32) {
	ready.Add(1)
	for i := 0; ready.Load() < n; i++ {
		if i%64 == 63 {
			runtime.Gosched()
		}
	}
}

// runWatched runs body as the root of rt, on e, under a watchdog of d: if
// Run has not returned by then, it fails the test with what() and e's
// counters and rings (a task that never ran: a lost wake-up).
func runWatched(t *testing.T, e *Executor, rt *kc.Runtime, d time.Duration, what func() string, body kc.Func) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- rt.Run(context.Background(), body) }()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(d):
		t.Fatalf("%s; %+v\n%s", what(), Snapshot(e), DumpRings(e))
	}
}

// A body that blocks in a channel wait (a Quick Parker: Park's blocking
// path, which keeps the goroutine) on the only worker, for a sender that
// is still queued behind it: Park gives the worker's slot back and, work
// being queued, wakes a worker, which runs the sender. No monitor, which
// would otherwise add a worker after two ticks. Afterwards, with nothing
// left to do, the counters settle: the slot given back and the debt the
// body came back with are paid, so no slot stays counted.
func TestChannelWaitCompensates(t *testing.T) {
	testutil.NoLeak(t)
	e, err := New(Workers(1), withoutMonitor())
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(e)
	// The sender runs at once or never.
	runWatched(t, e, rt, 5*time.Second, func() string {
		return "a body blocked in a channel Recv on the only worker: its sender did not run in 5 s"
	}, func(j *kc.Job) error {
		for range 20 {
			ch, err := kc.NewChan[int](0)
			if err != nil {
				return err
			}
			if _, err := j.Launch(func(c *kc.Job) error { return ch.Send(c, 1) }); err != nil {
				return err
			}
			if _, err := ch.Recv(j); err != nil { // the sender waits behind us
				return err
			}
		}
		return nil
	})
	deadline := time.Now().Add(5 * time.Second)
	for s := Snapshot(e); s.Running != 0 || s.Spinning != 0 || s.Debt != 0; s = Snapshot(e) {
		if time.Now().After(deadline) {
			t.Fatalf("idle after channel waits on the blocking path: %+v; want Running, Spinning and Debt 0", s)
		}
		time.Sleep(100 * time.Microsecond)
	}
	rt.Close()
	e.Close()
}

// A burst of two spawns wakes one worker: the second Spawn sees the first
// one's spinner and skips its wake (Go's wakep). The spinner that takes
// one of the tasks is the last spinner, so it wakes a worker for the other
// (stopSpinning, Go's resetspinning). Here nobody else would run it: the
// spawning body then blocks on a Go channel until both tasks have run,
// and the tasks wait for each other, with three worker slots and no
// monitor to add a worker.
func TestLastSpinnerWakesNext(t *testing.T) {
	testutil.NoLeak(t)
	e, err := New(Workers(3), withoutMonitor())
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(e)
	var round, arrived atomic.Int32
	// Each round takes microseconds, or never ends.
	runWatched(t, e, rt, 10*time.Second, func() string {
		return fmt.Sprintf("round %d: %d of 2 tasks ran in 10 s: the spinner that took one woke no worker for the other", round.Load(), arrived.Load())
	}, func(j *kc.Job) error {
		for ; round.Load() < 50; round.Add(1) {
			arrived.Store(0)
			all := make(chan struct{})
			pair := func(*kc.Job) error {
				if arrived.Add(1) == 2 {
					close(all)
				}
				<-all
				return nil
			}
			for range 2 {
				if _, err := j.Launch(pair); err != nil {
					return err
				}
			}
			<-all // blocks this worker where the executor cannot see
		}
		return nil
	})
	rt.Close()
	e.Close()
}

// A body that calls runtime.Goexit ends its worker's driver; the driver's
// deferred handler gives the slot back and, work being queued, wakes a
// replacement. Here the only worker's task Goexits with its sibling still
// queued behind it, and no monitor would add a worker: the sibling runs
// only if the handler wakes one.
func TestGoexitWakesReplacement(t *testing.T) {
	testutil.NoLeak(t)
	e, err := New(Workers(1), withoutMonitor())
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(e)
	var ran atomic.Int32
	// The siblings run at once or never.
	runWatched(t, e, rt, 10*time.Second, func() string {
		return fmt.Sprintf("after bodies that called Goexit: %d of 10 siblings ran in 10 s", ran.Load())
	}, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			for range 10 {
				// One worker, LIFO: the second launch runs first.
				if _, err := s.Launch(func(*kc.Job) error { ran.Add(1); return nil }); err != nil {
					return err
				}
				if _, err := s.Launch(func(*kc.Job) error { runtime.Goexit(); return nil }); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if n := ran.Load(); n != 10 {
		t.Errorf("siblings run: %d; want 10", n)
	}
	rt.Close()
	e.Close()
}

// retire gives up the caller's slot only while running is over the
// target, also when several workers over the target retire at once: from
// target+1, exactly one of them does. A retire that takes running below
// the target leaves a slot uncounted by a worker that never looked at the
// queues, and a task queued then may wait for the monitor.
func TestRetireKeepsTarget(t *testing.T) {
	e, err := New(Workers(2), withoutMonitor())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	defer e.sched.running.Store(0)
	e.sched.running.Store(2)
	if e.retire() || e.sched.running.Load() != 2 {
		t.Fatalf("retire at the target: it retired, or running is %d; want no retire and 2", e.sched.running.Load())
	}
	for round := range 2000 {
		e.sched.running.Store(3)
		var retired atomic.Int32
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if e.retire() {
					retired.Add(1)
				}
			})
		}
		wg.Wait()
		if n, r := retired.Load(), e.sched.running.Load(); n != 1 || r != 2 {
			t.Fatalf("round %d: three workers retire at once from running 3 (target 2): %d retired, running %d; want 1 and 2", round, n, r)
		}
	}
}

// payDebt takes each unit of debt once, also when many workers pay at
// once from one shard: the units taken add up to the debt recorded. A
// payer that takes a unit another payer took too leaves a worker that
// should have gone on running tasks gone, with its slot still counted.
func TestPayDebtOnce(t *testing.T) {
	e, err := New(Workers(2), withoutMonitor())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const units, payers = 5000, 2
	end := time.Now().Add(200 * time.Millisecond)
	for round := 0; time.Now().Before(end); round++ {
		e.debt[0].n.Store(units) // one shard: payers on every P take from it
		var paid, ready atomic.Int32
		var wg sync.WaitGroup
		for range payers {
			wg.Go(func() {
				together(&ready, payers) // all pay at once
				for e.payDebt() {
					paid.Add(1)
				}
			})
		}
		wg.Wait()
		if p := paid.Load(); p != units {
			t.Fatalf("round %d: %d payers took %d units of a debt of %d; want each unit taken once", round, payers, p, units)
		}
	}
}
