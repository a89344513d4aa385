package vcore

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestWakeSleeper checks the waker's side of the sleep handshake: the token
// goes to the worker the core's sleeper names, and only by the CAS of the
// very word the waker loaded. A sleeper that names another worker than the
// word means that worker has not published itself yet and will re-check the
// queues on its own (see wakeSleeper): the wake then reports success and
// sends nobody a token. And a worker that lost its core (a retake) and
// tries to sleep on it must not overwrite the sleeping new owner's entry,
// or that owner could never be woken.
func TestWakeSleeper(t *testing.T) {
	var e Executor
	var c core
	a, b := testWorker(1).withWake(), testWorker(2).withWake()
	state := func() string { w := c.word.Load(); return fmt.Sprintf("owner %d state %d", ownerOf(w), stateOf(w)) }

	c.sleeper.Store(a)
	c.word.Store(mkword(a.id.Load(), coreSleeping))
	if !e.wakeSleeper(&c, c.word.Load()) {
		t.Fatal("wake of a's sleep with sleeper a: got false; want true")
	}
	if got := c.word.Load(); got != mkword(a.id.Load(), coreRunning) {
		t.Errorf("word after the wake: got %s; want a Running", state())
	}
	if len(a.wake) != 1 {
		t.Error("a has no wake token after its wake")
	}
	<-a.wake

	// The word moved on since the waker loaded it: the CAS fails.
	c.sleeper.Store(b)
	c.word.Store(mkword(b.id.Load(), coreRunning))
	if e.wakeSleeper(&c, mkword(b.id.Load(), coreSleeping)) {
		t.Fatal("wake with a stale word: got true; want false")
	}

	// b is Sleeping but has not published itself (sleeper still a): no
	// CAS, no token; b's own re-check covers the caller.
	c.sleeper.Store(a)
	c.word.Store(mkword(b.id.Load(), coreSleeping))
	if !e.wakeSleeper(&c, c.word.Load()) {
		t.Fatal("wake of an unpublished sleeper: got false; want true (nothing to do)")
	}
	if got := c.word.Load(); got != mkword(b.id.Load(), coreSleeping) || len(a.wake)+len(b.wake) != 0 {
		t.Errorf("after the wake of an unpublished sleeper: word %s, tokens a %d b %d; want b Sleeping and no tokens", state(), len(a.wake), len(b.wake))
	}

	// a lost the core to b, which sleeps on it; a's late sleep must fail
	// and leave b findable.
	c.sleeper.Store(b)
	if e.sleep(a, &c) {
		t.Fatal("sleep of a worker that does not own the core: got true; want false")
	}
	if got := c.sleeper.Load(); got != b {
		t.Fatalf("sleeper after a failed sleep of a: got worker %d; want b", got.id.Load())
	}
	if !e.wakeSleeper(&c, c.word.Load()) || len(b.wake) != 1 || c.word.Load() != mkword(b.id.Load(), coreRunning) {
		t.Errorf("wake of b: word %s, b's tokens %d; want b Running with a token", state(), len(b.wake))
	}
}

// At most half the cores' owners spin at once (startSpin) where owners are
// goroutines: with four cores owned and idle and a long spin budget,
// nspinning never exceeds two.
func TestSpinnersAtMostHalf(t *testing.T) {
	ex, err := New(Workers(4), Spin(MaxSpin))
	if err != nil {
		t.Fatal(err)
	}
	ex.coro = false // owners as goroutines, as where goroutine identities are missing
	rt := kc.New(ex)
	defer rt.Close()
	var sink atomic.Uint64
	busy := func(*kc.Job) error { // long enough for the next launch to find its core's owner busy
		for i := range 20000 {
			sink.Add(uint64(i))
		}
		return nil
	}
	for round := 0; ex.Stats().WorkersStarted < 4; round++ {
		if round == 100 {
			t.Skipf("only %d of 4 cores got an owner in 100 rounds", ex.Stats().WorkersStarted)
		}
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			for range 16 {
				if _, err := j.Launch(busy); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The owners now look for work, with a 10 ms spin budget each.
	most := int32(0)
	for end := time.Now().Add(5 * time.Millisecond); time.Now().Before(end); {
		most = max(most, ex.nspinning.Load())
		runtime.Gosched()
	}
	if most > 2 {
		t.Errorf("owners spinning at once, of 4 cores: got up to %d; want at most 2", most)
	}
}

// testWorker returns a worker record started as owner id, unregistered.
func testWorker(id uint64) *worker {
	w := new(worker)
	w.start(id)
	return w
}

// withWake gives w its wake channel, as its goroutine's first sleep would.
func (w *worker) withWake() *worker {
	w.wake = make(chan struct{}, 1)
	return w
}

// TestWorkerOneLine checks that a worker record fits one cache line on
// 64-bit platforms (see worker): a woken parked task's goroutine touches
// its record on its way out, and a second line is a second cache miss.
func TestWorkerOneLine(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the layout is sized for 64-bit platforms")
	}
	if got := unsafe.Sizeof(worker{}); got > 64 {
		t.Errorf("worker is %d bytes; want at most 64", got)
	}
}

// TestIdleHandoff checks an idle goroutine's hand-off point (pool_park.go,
// pool_chan.go in race builds) in both orders: a hand that comes before
// the goroutine parks and one that comes after, and a close.
func TestIdleHandoff(t *testing.T) {
	c := new(core)
	for _, early := range []bool{true, false} {
		x := newIdle()
		x.arm()
		got := make(chan ownerStart, 1)
		parked := make(chan struct{})
		if early {
			x.hand(ownerStart{id: 7, c: c})
		}
		go func() {
			close(parked)
			s, ok := x.wait()
			if !ok {
				s.id = 0
			}
			got <- s
		}()
		<-parked
		if !early {
			time.Sleep(time.Millisecond) // mostly parked by now; either order must work
			x.hand(ownerStart{id: 7, c: c})
		}
		select {
		case s := <-got:
			if s.id != 7 || s.c != c {
				t.Errorf("early=%v: got owner %d on %p; want 7 on %p", early, s.id, s.c, c)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("early=%v: the waiting goroutine was never handed its owner", early)
		}
	}
	x := newIdle()
	x.arm()
	done := make(chan bool, 1)
	go func() { _, ok := x.wait(); done <- ok }()
	x.close()
	select {
	case ok := <-done:
		if ok {
			t.Error("wait after close: got ok; want false")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("close never ended the waiting goroutine")
	}
}

// The last spinner that stops because it found a task wakes an owner if
// more work waits: two tasks pushed to a busy core while one owner spun
// woke nobody (their pushers counted on the spinner), and the spinner
// takes one. Without the wake the other waits for the busy body or for
// sysmon's retake. The owners are records driven by hand: a spins on
// core a, b runs a long body on core b, c sleeps on core c.
func TestSpinnerTakingWorkWakesAnother(t *testing.T) {
	ex, err := New(Workers(3), Spin(MaxSpin))
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	a, b, c := &ex.cores[0], &ex.cores[1], &ex.cores[2]
	wa, wb, wc := testWorker(ex.newID()), testWorker(ex.newID()), testWorker(ex.newID()).withWake()
	a.word.Store(mkword(wa.id.Load(), coreRunning))
	ex.nspinning.Store(1)
	b.word.Store(mkword(wb.id.Load(), coreRunning))
	c.word.Store(mkword(wc.id.Load(), coreSleeping))
	c.sleeper.Store(wc) // published, as sleep does
	defer func() {
		for _, x := range []*core{a, b, c} {
			x.word.Store(mkword(0, coreFree))
		}
		for b.inbox.pop() != nil {
		}
	}()
	for _, x := range tasks(2) { // Spawn's path to a busy core: push, then kick
		b.inbox.push(x)
		ex.kick(b)
	}
	if len(wc.wake) != 0 {
		t.Fatal("a pusher woke c although a spinner was counted")
	}
	if x, _ := ex.poll(wa, a); x == nil {
		t.Fatal("the spinner found nothing")
	}
	ex.spunToWork() // findWork's way out of the spin with the task
	if b.inbox.empty() {
		t.Fatal("the spinner took both tasks")
	}
	if len(wc.wake) == 0 || stateOf(c.word.Load()) != coreRunning {
		t.Errorf("a task waits in busy core b's inbox and core c is %v with %d wake tokens; want c woken",
			stateOf(c.word.Load()), len(wc.wake))
	}
}
