package vcore

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// tasks returns n distinct task pointers; the queues never dereference them.
func tasks(n int) []*kc.Task {
	ts := make([]*kc.Task, n)
	for i := range ts {
		ts[i] = new(kc.Task)
	}
	return ts
}

func TestRingFIFOAndFull(t *testing.T) {
	var r ring
	r.init(4)
	ts := tasks(5)
	if !r.empty() || r.pop() != nil {
		t.Fatal("new ring: got an item; want empty")
	}
	for i := range 4 {
		if !r.push(ts[i]) {
			t.Fatalf("push %d into a ring of 4: got full", i)
		}
	}
	if r.push(ts[4]) {
		t.Fatal("push into a full ring: got true; want false")
	}
	for lap := range 3 { // wrap around a few times
		for i := range 4 {
			if got := r.pop(); got != ts[i] {
				t.Fatalf("lap %d pop %d: got %p; want %p", lap, i, got, ts[i])
			}
			if !r.push(ts[i]) {
				t.Fatalf("lap %d: push after pop: got full", lap)
			}
		}
	}
}

// Producers and consumers hammer one ring, and a global queue with a tiny
// ring so that the overflow list is used: every task comes out exactly once.
func TestQueuesConcurrent(t *testing.T) {
	const producers, consumers, per = 3, 3, 1500
	var r ring
	r.init(64)
	var g globalQueue
	g.init(8)
	queues := []struct {
		name string
		push func(*kc.Task) bool
		pop  func() *kc.Task
	}{
		{"ring", r.push, r.pop},
		{"global", func(t *kc.Task) bool { g.push(t); return true }, g.pop},
	}
	for _, q := range queues {
		t.Run(q.name, func(t *testing.T) {
			ts := tasks(producers * per)
			var seen sync.Map
			var wg sync.WaitGroup
			var left sync.WaitGroup
			left.Add(len(ts))
			done := make(chan struct{})
			for p := range producers {
				wg.Go(func() {
					for _, x := range ts[p*per : (p+1)*per] {
						for !q.push(x) {
							runtime.Gosched()
						}
					}
				})
			}
			for range consumers {
				wg.Go(func() {
					for {
						select {
						case <-done:
							return
						default:
						}
						if x := q.pop(); x != nil {
							if _, dup := seen.LoadOrStore(x, true); dup {
								t.Errorf("task %p popped twice", x)
							}
							left.Done()
						} else {
							runtime.Gosched()
						}
					}
				})
			}
			left.Wait()
			close(done)
			wg.Wait()
			if x := q.pop(); x != nil {
				t.Errorf("after draining: got %p; want empty", x)
			}
		})
	}
}

// Once nothing is active, sysmon blocks (no timer, no CPU) and the first
// Spawn wakes it again.
func TestSysmonSleepsWhenIdle(t *testing.T) {
	ex, err := New(Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(ex)
	defer rt.Close()
	for round := range 2 {
		if err := rt.Run(context.Background(), func(*kc.Job) error { return nil }); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second) // a watchdog, not a timing assertion
		for !ex.mon.idle.Load() {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: sysmon still awake 5 s after the last task", round)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// TestThreadIDs checks that Park's caller lookup is on wherever threadID
// is implemented: without it the registry stays empty and Park never hands
// a core off.
func TestThreadIDs(t *testing.T) {
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "windows/amd64", "windows/arm64":
	default:
		switch runtime.GOOS {
		case "linux", "darwin", "freebsd":
		default:
			t.Skipf("no threadID on %s/%s", runtime.GOOS, runtime.GOARCH)
		}
	}
	if !threadIDsWork() {
		t.Fatalf("threadIDsWork on %s/%s: got false; want true (threadID: %d)", runtime.GOOS, runtime.GOARCH, threadID())
	}
	var r registry
	r.init(4)
	if len(r.slots) != 4 {
		t.Errorf("registry.init(4): got %d slots; want 4", len(r.slots))
	}
}

// TestRegistrySelfUnlocked checks that a goroutine that is not locked to
// its thread never finds a worker in the registry, while other goroutines
// keep locking threads and registering and unregistering on them (an
// unlocked caller can move off its thread mid-lookup, and the thread can be
// locked and registered by another goroutine meanwhile).
func TestRegistrySelfUnlocked(t *testing.T) {
	if !regByG && !threadIDsWork() {
		t.Skipf("no thread ids on %s/%s: the registry stays empty", runtime.GOOS, runtime.GOARCH)
	}
	var r registry
	r.init(8)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			w := testWorker(uint64(i + 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				runtime.LockOSThread()
				r.add(w)
				if got := r.self(); got != w {
					t.Errorf("self of a registered, locked goroutine: got %p; want its worker %p", got, w)
				}
				r.remove(w)
				runtime.UnlockOSThread()
				runtime.Gosched()
			}
		})
	}
	var bad sync.Once
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if w := r.self(); w != nil {
					bad.Do(func() { t.Errorf("self of an unlocked goroutine: got worker %d; want nil", w.id.Load()) })
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
}

// TestRegistryByG checks the goroutine keys: a registered goroutine finds
// its worker whether or not it is locked, and no other goroutine finds it.
func TestRegistryByG(t *testing.T) {
	if !regByG {
		t.Skipf("no goruntime.G on %s: the registry is keyed by thread", runtime.GOARCH)
	}
	var r registry
	r.init(4)
	w := testWorker(1)
	r.add(w)
	defer r.remove(w)
	for range 100 {
		if got := r.self(); got != w {
			t.Fatalf("self of the registered, unlocked goroutine: got %p; want %p", got, w)
		}
		runtime.Gosched() // move threads, maybe; the key stays
	}
	other := make(chan *worker)
	go func() { other <- r.self() }()
	if got := <-other; got != nil {
		t.Errorf("self of another goroutine: got worker %d; want nil", got.id.Load())
	}
}

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

// TestSpawnDropsStale checks that a full inbox of stale entries (children
// their parent awaited, so ran inline, while it held the only core) makes
// room for the next task instead of sending it to the global queue, and
// that the dropped entries still count as ended: Close returns. With
// goroutine registry keys the children go through the next slot instead
// (TestNextSlotKeepsAwaitedChildren), so this reaches the inbox only where
// regByG is false; TestDropStale covers dropStale on every architecture.
// Through the next slot the global queue may get a child by design: one
// that sat in the slot for two sysmon ticks (its parent's thread
// descheduled between the Launch and the await, on a loaded machine) goes
// there (moveStaleNext), and the parent then runs it inline, leaving its
// entry stale. So only the inbox path is held to an empty global queue.
func TestSpawnDropsStale(t *testing.T) {
	ex, err := New(Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(ex)
	overflowed := false
	err = rt.Run(context.Background(), func(j *kc.Job) error {
		return awaitOnes(t, j, 4*ex.cfg.inboxSize, func() {
			overflowed = overflowed || !ex.global.empty()
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if overflowed && !regByG {
		t.Errorf("%d awaited children on one busy core: the global queue got some; want every one in the inbox", 4*ex.cfg.inboxSize)
	}
	testutil.Watchdog(t, 10*time.Second, func() { rt.Close() })
	if a := ex.Stats().Active; a != 0 {
		t.Errorf("Stats.Active after Close: got %d; want 0", a)
	}
}

// TestDropStale fills a core's inbox with Finished tasks, counted active
// as Spawn counts them, then checks that dropStale empties it, ending each
// for active_tasks, and sends nothing to the global queue. It does so
// after Close, with no owner left: a live owner could pop an entry too and
// end it only after the count is read, and Run returns before the owner
// has ended the root task and the last child's stale next-slot entry, so
// before Close the count moves under the test.
func TestDropStale(t *testing.T) {
	ex, err := New(Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(ex)
	var done []*kc.Task
	err = rt.Run(context.Background(), func(j *kc.Job) error {
		for range staleScan {
			c, err := j.Launch(func(*kc.Job) error { return nil })
			if err != nil {
				return err
			}
			if err := c.Join(j); err != nil {
				return err
			}
			done = append(done, (*kc.Task)(c))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Watchdog(t, 10*time.Second, func() { rt.Close() })
	c := &ex.cores[0]
	base := ex.active.Load()
	for _, task := range done {
		ex.active.Add(1)
		if !c.inbox.push(task) {
			t.Fatalf("inbox of %d full after fewer than %d pushes", ex.cfg.inboxSize, staleScan)
		}
	}
	ex.dropStale(c)
	if !c.inbox.empty() || !ex.global.empty() {
		t.Errorf("after dropStale: inbox empty %v, global empty %v; want both", c.inbox.empty(), ex.global.empty())
	}
	if a := ex.active.Load(); a != base {
		t.Errorf("active after dropStale: got %d; want %d (each dropped entry ended)", a, base)
	}
}

// awaitOnes launches n children returning 1 from j, awaiting each at once,
// and calls after (if not nil) after each await.
func awaitOnes(t *testing.T, j *kc.Job, n int, after func()) error {
	one := func(*kc.Job) (int, error) { return 1, nil }
	for range n {
		d, err := kc.Async(j, one)
		if err != nil {
			return err
		}
		if v, err := d.Await(j); err != nil || v != 1 {
			t.Errorf("await: got %d, %v; want 1, nil", v, err)
			return nil
		}
		if after != nil {
			after()
		}
	}
	return nil
}

// At most half the cores' owners spin at once (startSpin): with four cores
// owned and idle and a long spin budget, nspinning never exceeds two.
func TestSpinnersAtMostHalf(t *testing.T) {
	ex, err := New(Workers(4), Spin(MaxSpin))
	if err != nil {
		t.Fatal(err)
	}
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
			x.hand(ownerStart{7, c})
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
			x.hand(ownerStart{7, c})
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
