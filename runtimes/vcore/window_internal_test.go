package vcore

import (
	"context"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// The tests in this file each put one move of another goroutine into a
// window of a few nanoseconds in the core protocol, through a test hook
// (testhooks.go), so that a protocol that ignores the move fails every run.

// finishedTask returns the task of a job that has run and ended, on an
// executor closed since. Queued again, it is a stale entry: an owner's
// RunOn of it does nothing (its claim fails), and the owner counts it done.
func finishedTask(t *testing.T) *kc.Task {
	t.Helper()
	ex, err := New(Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(ex)
	var done *kc.Task
	err = rt.Run(context.Background(), func(j *kc.Job) error {
		c, err := j.Launch(func(*kc.Job) error { return nil })
		if err != nil {
			return err
		}
		done = (*kc.Task)(c)
		return c.Join(j)
	})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Watchdog(t, 10*time.Second, func() { rt.Close() })
	return done
}

// closeExecutor closes ex under a watchdog and checks that nothing is left
// active: every task queued in the test was run.
func closeExecutor(t *testing.T, ex *Executor) {
	t.Helper()
	testutil.Watchdog(t, 10*time.Second, func() { ex.Close() })
	if a := ex.Stats().Active; a != 0 {
		t.Errorf("Stats.Active after Close: got %d; want 0", a)
	}
}

// coreWithWork returns a new one-core executor, none of whose goroutines
// has started but sysmon, asleep, and its core, Free, with a stale task in
// its inbox, counted active as Spawn counts it but pushed without a kick:
// the test then sets the core's word and calls retake itself.
func coreWithWork(t *testing.T) (*Executor, *core) {
	t.Helper()
	done := finishedTask(t)
	ex, err := New(Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	c := &ex.cores[0]
	ex.active.Add(1)
	if !c.inbox.push(done) {
		t.Fatal("push to an empty inbox failed")
	}
	return ex, c
}

// A Spawn onto a core whose owner is passing it on (Park) can land after
// pass found no work and before its CAS to Free: the Spawn's kick finds the
// core Running and wakes nobody. pass must look again after its CAS (the
// Dekker pair with Spawn's push, then load of the word) and start an owner,
// or the task waits on a Free core that nobody will claim.
func TestPassRechecksAfterFree(t *testing.T) {
	done := finishedTask(t)
	ex, err := New(Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	c := &ex.cores[0]
	me := mkword(ex.newID(), coreRunning) // an owner that has unlocked and passes c on
	c.word.Store(me)
	spawned := false
	testHookPass = func(h *core) {
		if h == c && !spawned {
			spawned = true
			ex.Spawn(done)
		}
	}
	defer func() { testHookPass = nil }()
	if _, handed := ex.pass(me, c); handed {
		t.Fatal("pass handed the core to an owner at its first look; want none (no work yet)")
	}
	if !spawned {
		t.Fatal("pass never reached its CAS to Free")
	}
	if w := c.word.Load(); stateOf(w) == coreFree && !c.inbox.empty() {
		t.Error("after pass: a task waits on a Free core and no owner was started (its wake was lost)")
		ex.kick(c) // let Close drain it
	}
	closeExecutor(t, ex)
}

// sysmon retakes only Running cores. A Sleeping core with an old beat and
// work in its inbox (a Spawn between its push and its kick) is not stuck:
// its owner waits for a wake token, and a retake would take the core
// without sending one, leaving that owner asleep for ever. The same core,
// Running, is retaken: the test reaches the retake's CAS.
func TestRetakeSkipsSleeping(t *testing.T) {
	ex, c := coreWithWork(t)
	sleeper := testWorker(ex.newID()).withWake()
	asleep := mkword(sleeper.id.Load(), coreSleeping)
	c.word.Store(asleep)
	c.sleeper.Store(sleeper)
	var last time.Time
	now := time.Now()
	ex.retake(now, &last, false) // sees the beat
	if did, _ := ex.retake(now.Add(time.Hour), &last, false); did || c.word.Load() != asleep || len(sleeper.wake) != 0 {
		t.Fatalf("retake of a Sleeping core: did %v, word owner %d state %d, tokens %d; want no retake, the word unchanged, no token",
			did, ownerOf(c.word.Load()), stateOf(c.word.Load()), len(sleeper.wake))
	}
	c.word.Store(mkword(sleeper.id.Load(), coreRunning)) // the owner, stuck in a body
	if did, _ := ex.retake(now.Add(2*time.Hour), &last, false); !did || ex.Stats().Retakes != 1 {
		t.Errorf("retake of the same core Running: did %v, Retakes %d; want a retake", did, ex.Stats().Retakes)
		ex.kick(c)
	}
	closeExecutor(t, ex)
}

// A retake judges a core stuck from the word it loaded. If the stuck owner
// comes back and passes the core on (Park: pass hands it to a new owner,
// work waiting) before the retake's CAS, the retake must fail: a store
// would give the core a second owner, and count a stuck goroutine that is
// not there.
func TestRetakeLosesToOwner(t *testing.T) {
	ex, c := coreWithWork(t)
	stuck := mkword(ex.newID(), coreRunning)
	c.word.Store(stuck)
	moved := false
	testHookRetake = func(h *core) {
		if h == c && !moved {
			moved = true
			ex.giveAway(testWorker(ownerOf(stuck)), c) // the owner parks: pass and start its successor
		}
	}
	defer func() { testHookRetake = nil }()
	var last time.Time
	now := time.Now()
	ex.retake(now, &last, false)
	did, _ := ex.retake(now.Add(time.Hour), &last, false)
	if !moved {
		t.Fatal("retake never reached its CAS")
	}
	if did || ex.Stats().Retakes != 0 || ex.retaken.Load() != 0 {
		t.Errorf("retake after the owner passed the core on: did %v, Retakes %d, retaken %d; want no retake",
			did, ex.Stats().Retakes, ex.retaken.Load())
	}
	closeExecutor(t, ex)
}

// sysmon decides to sleep when nothing is active, then says so (idle) and
// blocks. A Spawn between the two finds sysmon awake, so its kick sends no
// token: monSleep must look at active again after saying so and not
// sleep, or sysmon would sleep through that work (no retakes, no helpers)
// until the next Spawn after everything ended.
func TestMonSleepSeesEarlySpawn(t *testing.T) {
	var e Executor
	e.mon.init()
	e.mon.idle.Store(false) // awake, as sysmon is when it decides to sleep
	testHookMonSleep = e.begin
	defer func() { testHookMonSleep = nil }()
	returned := make(chan bool, 1)
	go func() {
		var last time.Time
		returned <- e.monSleep(&last)
	}()
	select {
	case ok := <-returned:
		if !ok {
			t.Error("monSleep: got false (quit); want true")
		}
	case <-time.After(5 * time.Second): // a watchdog: it returns at once or never
		t.Error("monSleep slept through a Spawn made as it decided to sleep")
		e.mon.quit()
		<-returned
	}
	if e.mon.idle.Load() {
		t.Error("sysmon still marked idle with a task active")
	}
}
