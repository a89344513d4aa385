package vcore

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/kcbench/kcbench/conformance"
	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
	"golang.org/x/sys/cpu"
)

// A context is a whole number of cache lines, so that contexts that
// different cores' owners run share none.
func TestCtxLines(t *testing.T) {
	if !goruntime.GOK {
		t.Skip("no contexts on this architecture: owners are goroutines")
	}
	if n := unsafe.Sizeof(ctx{}); n%64 != 0 {
		t.Errorf("ctx is %d bytes; want a multiple of 64", n)
	}
	if off := unsafe.Offsetof(ctx{}.w); off != 0 {
		t.Errorf("ctx.w at offset %d; want 0 (ctxOf)", off)
	}
}

// A core's heartbeat, which its owner adds to at every task, shares no
// cache line with the word and the next slot, which other cores load at
// every task they queue for it.
func TestCoreBeatLine(t *testing.T) {
	var c core
	line := unsafe.Sizeof(cpu.CacheLinePad{})
	beat := unsafe.Offsetof(c.beat)
	for _, f := range []struct {
		name string
		off  uintptr
	}{{"word", unsafe.Offsetof(c.word)}, {"sleeper", unsafe.Offsetof(c.sleeper)}, {"next", unsafe.Offsetof(c.next)}} {
		if beat < f.off+line && f.off < beat+line {
			t.Errorf("core.beat at offset %d is within %d bytes of core.%s at %d; want a line apart", beat, line, f.name, f.off)
		}
	}
}

func TestReadyQueueFIFO(t *testing.T) {
	var q readyQueue
	ts := []*ctx{new(ctx), new(ctx), new(ctx), new(ctx)}
	if r, _ := q.pop(); r != nil || !q.empty() {
		t.Fatal("new queue: got a context; want empty")
	}
	for lap := range 3 { // the stub goes round, nodes are reused
		for _, x := range ts {
			q.push(x)
		}
		for i, w := range ts {
			r, after := q.pop()
			if r != w {
				t.Fatalf("lap %d pop %d: got %p; want %p", lap, i, r, w)
			}
			var wantAfter *ctx
			if i+1 < len(ts) {
				wantAfter = ts[i+1]
			}
			if after != wantAfter {
				t.Fatalf("lap %d pop %d: got next %p; want %p", lap, i, after, wantAfter)
			}
		}
		if r, _ := q.pop(); r != nil || !q.empty() || q.n.Load() != 0 {
			t.Fatalf("lap %d, drained queue: got %p, n = %d; want nothing, 0", lap, r, q.n.Load())
		}
	}
}

// Producers push and consumers pop concurrently, each context re-pushed
// once popped (as a context is woken again after it ran): every push comes
// out exactly once, and each producer's pushes in order.
func TestReadyQueueConcurrent(t *testing.T) {
	const producers, consumers, per = 3, 2, 3000
	var q readyQueue
	type tag struct{ p, i int }
	tags := make(map[*ctx]tag)
	nodes := make([][]*ctx, producers)
	for p := range nodes {
		nodes[p] = make([]*ctx, 8) // few nodes, each reused many times
		for k := range nodes[p] {
			nodes[p][k] = new(ctx)
		}
	}
	// A node's next push waits for its pop, as a context is woken again
	// only after it ran: free[p] hands popped nodes back to producer p.
	free := make([]chan *ctx, producers)
	for p := range free {
		free[p] = make(chan *ctx, len(nodes[p]))
		for _, x := range nodes[p] {
			free[p] <- x
		}
	}
	var mu sync.Mutex
	got := make([]int, producers) // next index expected from producer p
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range per {
				x := <-free[p]
				mu.Lock()
				tags[x] = tag{p, i}
				mu.Unlock()
				q.push(x)
			}
		})
	}
	var popped atomic.Int64
	errs := make(chan string, consumers)
	for range consumers {
		wg.Go(func() {
			for popped.Load() < producers*per {
				// The order check goes with the pop, under one lock:
				// checked after it, two consumers' pops could be
				// checked the other way round.
				mu.Lock()
				x, _ := q.pop()
				if x == nil {
					mu.Unlock()
					runtime.Gosched()
					continue
				}
				tg := tags[x]
				ok := got[tg.p] == tg.i
				got[tg.p]++
				mu.Unlock()
				if !ok {
					select { // report the first, and go on, so the producers finish
					case errs <- fmt.Sprintf("producer %d: push %d out of order", tg.p, tg.i):
					default:
					}
				}
				popped.Add(1)
				free[tg.p] <- x
			}
		})
	}
	testutil.Watchdog(t, 20*time.Second, wg.Wait)
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if !q.empty() {
		t.Errorf("after every pop: n = %d; want 0", q.n.Load())
	}
}

// A context that is not parked cannot be resumed: a double wake panics
// instead of running the task twice.
func TestResumeNotParkedPanics(t *testing.T) {
	for _, s := range []ctxState{ctxRunning, ctxParking, ctxReady, ctxIdle, ctxDead} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Resume of a context that is %v: no panic", s)
				}
			}()
			(&ctx{state: s}).Resume()
		}()
	}
}

// prefetch of a context whose recorded addresses are stale or unset does
// no harm: it only hints.
func TestCtxPrefetchStale(t *testing.T) {
	var x ctx
	x.prefetch()
	x.g = ^uintptr(0) &^ 63
	x.sp.Store(1 << 30 * 3)
	x.prefetch()
}

// Parked tasks suspend their contexts where owners are contexts (and
// never when pinned); a body that holds a thread lock of its own parks
// as a goroutine, without the runtime's throw that a switch away from a
// locked goroutine would cause; and the contexts' goroutines end with
// Close.
func TestParkSuspendsContext(t *testing.T) {
	testutil.NoLeak(t)
	ex, err := New(Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(ex)
	testutil.Watchdog(t, 20*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			nur, err := j.Open()
			if err != nil {
				return err
			}
			for range 200 {
				if _, err := nur.Launch(func(c *kc.Job) error { return c.Sleep(time.Hour) }); err != nil {
					return err
				}
			}
			if _, err := nur.Launch(func(c *kc.Job) error {
				runtime.LockOSThread() // left locked: the owner stint's end undoes it
				return c.Sleep(time.Hour)
			}); err != nil {
				return err
			}
			if err := j.Sleep(5 * time.Millisecond); err != nil {
				return err
			}
			nur.Cancel(nil)
			return nur.AwaitAll(j)
		})
		if !errors.Is(err, kc.ErrCancelled) {
			t.Errorf("Run: got %v; want ErrCancelled", err)
		}
		rt.Close()
	})
	st := ex.Stats()
	if ex.coro && st.Suspends == 0 {
		t.Errorf("Stats: %+v; want Suspends > 0 with owners as contexts", st)
	}
	if !ex.coro && st.Suspends != 0 {
		t.Errorf("Stats: %+v; want Suspends 0 with owners as goroutines", st)
	}
	if st.Suspends > st.Handoffs {
		t.Errorf("Stats: Suspends %d > Handoffs %d; want a subset", st.Suspends, st.Handoffs)
	}
}

// The whole conformance suite with owners as goroutines, the mode of
// platforms without goroutine identities (where Park does not suspend
// contexts), run here on one that has them.
func TestConformanceGoroutineOwners(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole suite; skipped with -short")
	}
	err := conformance.Test(func() (*kc.Runtime, error) {
		ex, err := New()
		if err != nil {
			return nil, err
		}
		ex.coro = false
		return kc.New(ex, kc.WithName("vcore")), nil
	})
	if err != nil {
		t.Error(err)
	}
}

// With one core, a body blocked on a Go channel holds the core while the
// task that would unblock it, a context woken from a timer wait, waits in
// that core's ready queue: sysmon must count the ready queue as work
// waiting and retake the core (TempWorkers > 0), or, past the retake
// bound, start a helper that drives the woken context (TempWorkers(0)).
func TestStuckOwnerReleasesReadyContexts(t *testing.T) {
	for _, temp := range []int{MaxTemp, 0} {
		t.Run(fmt.Sprintf("TempWorkers=%d", temp), func(t *testing.T) {
			testutil.NoLeak(t)
			ex, err := New(Workers(1), TempWorkers(temp))
			if err != nil {
				t.Fatal(err)
			}
			rt := kc.New(ex)
			testutil.Watchdog(t, 20*time.Second, func() {
				err := rt.Run(context.Background(), func(j *kc.Job) error {
					ch := make(chan struct{})
					return j.Scope(func(s *kc.Job) error {
						if _, err := s.Launch(func(c *kc.Job) error {
							if err := c.Sleep(2 * time.Millisecond); err != nil {
								return err
							}
							close(ch)
							return nil
						}); err != nil {
							return err
						}
						_, err := s.Launch(func(*kc.Job) error { <-ch; return nil })
						return err
					})
				})
				if err != nil {
					t.Error(err)
				}
				rt.Close()
			})
			st := ex.Stats()
			if ex.coro && st.Suspends == 0 {
				t.Errorf("Stats: %+v; want the sleeper suspended (Suspends > 0)", st)
			}
			// With goroutine owners the woken sleeper runs coreless,
			// and no rescue is needed.
			if ex.coro && (temp > 0 && st.Retakes == 0 || temp == 0 && st.Helpers == 0) {
				t.Errorf("Stats: %+v; want a retake (TempWorkers > 0) or a helper (TempWorkers 0)", st)
			}
		})
	}
}

// The contexts a burst of parks made are pooled after the wake, and sysmon
// trims the pool while nothing draws from it, also once the executor is
// idle: within seconds it holds none.
func TestCtxPoolTrimmed(t *testing.T) {
	ex, err := New(Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	if !ex.coro {
		ex.Close()
		t.Skip("owners are goroutines here: no contexts")
	}
	rt := kc.New(ex)
	defer rt.Close()
	const burst = 500
	var entered atomic.Int32
	err = rt.Run(context.Background(), func(j *kc.Job) error {
		nur, err := j.Open()
		if err != nil {
			return err
		}
		for range burst {
			if _, err := nur.Launch(func(c *kc.Job) error { entered.Add(1); return c.Sleep(time.Hour) }); err != nil {
				return err
			}
		}
		// Every sleeper has started (on a loaded machine that can take
		// longer than any fixed pause), and then some time to park.
		for deadline := time.Now().Add(20 * time.Second); entered.Load() < burst; {
			if time.Now().After(deadline) {
				return fmt.Errorf("%d of %d sleepers started in 20s", entered.Load(), burst)
			}
			if err := j.Sleep(time.Millisecond); err != nil {
				return err
			}
		}
		if err := j.Sleep(10 * time.Millisecond); err != nil {
			return err
		}
		nur.Cancel(nil)
		nur.AwaitAll(j)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// most is the largest pool seen: an owner hands its stash (up to
	// stashMax idle contexts) to the pool only as it runs out of work,
	// which on a loaded machine can come after Run has returned.
	most := ex.ctxs.size()
	for deadline := time.Now().Add(10 * time.Second); ex.ctxs.size() != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("idle contexts pooled: at most %d after the burst, %d ten seconds later; want 0", most, ex.ctxs.size())
		}
		time.Sleep(10 * time.Millisecond)
		most = max(most, ex.ctxs.size())
	}
	if most < burst/5 {
		t.Errorf("idle contexts pooled after a burst of %d parks: at most %d; want at least %d", burst, most, burst/5)
	}
}

// A trim that comes after the pool closed (sysmon's last beat can race
// with Close's ctxs.close) finds nothing to stop: close resets the
// low-water mark with the count.
func TestCtxPoolTrimAfterClose(t *testing.T) {
	var p ctxPool
	stopped := 0
	for range 4 {
		p.putAll([]*ctx{{stop: func() { stopped++ }}})
	}
	p.trim() // nothing drawn since the start: the low-water mark is 0
	p.trim() // the mark is 4 now: stops 2
	p.close()
	p.trim()
	if stopped != 4 || p.size() != 0 {
		t.Errorf("stopped %d, pooled %d after two trims, close and a trim; want 4 stopped, 0 pooled", stopped, p.size())
	}
}

// putAll pools a driver's stash in one locked section: get hands the
// contexts back first to last, each idle and unlinked; once the pool is
// closed, putAll stops them instead.
func TestCtxPoolPutAll(t *testing.T) {
	var p ctxPool
	stopped := 0
	ts := []*ctx{{}, {}, {}}
	p.putAll(ts)
	if p.size() != len(ts) {
		t.Fatalf("pooled %d after putAll of %d", p.size(), len(ts))
	}
	for i, want := range ts {
		got := p.get()
		if got != want || got.state != ctxIdle || got.link != nil {
			t.Fatalf("get %d: %p (state %v, link %p); want %p, idle, unlinked", i, got, got.state, got.link, want)
		}
	}
	if got := p.get(); got != nil {
		t.Fatalf("get from an empty pool: %p; want nil", got)
	}
	p.close()
	p.putAll([]*ctx{{stop: func() { stopped++ }}, {stop: func() { stopped++ }}})
	if stopped != 2 || p.size() != 0 {
		t.Errorf("putAll of 2 into a closed pool: stopped %d, pooled %d; want 2 stopped, 0 pooled", stopped, p.size())
	}
}

// runOnContexts runs body as the root of a runtime on a fresh executor
// made with opts, under a watchdog, closes it and returns the executor
// for its stats; it skips the test where owners are goroutines (no
// contexts) and fails it on Run's error or a goroutine left behind.
func runOnContexts(t *testing.T, body kc.Func, opts ...Option) *Executor {
	t.Helper()
	testutil.NoLeak(t)
	ex, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	if !ex.coro {
		ex.Close() // its monitor must not outlive the test
		t.Skip("owners are goroutines here: no contexts")
	}
	rt := kc.New(ex)
	testutil.Watchdog(t, 20*time.Second, func() {
		if err := rt.Run(context.Background(), body); err != nil {
			t.Error(err)
		}
		rt.Close()
	})
	return ex
}

// A helper that ran a body which left its thread locked goes on to drive
// a woken context: it must undo the lock first, since the runtime throws
// on a coroutine switch from a locked goroutine (the process dies). The
// only owner is blocked on a Go channel, so that a helper runs the
// locking body, and then finds the woken sleeper in the ready queue.
func TestHelperUndoesThreadLock(t *testing.T) {
	ex := runOnContexts(t, func(j *kc.Job) error {
		ch := make(chan struct{})
		return j.Scope(func(s *kc.Job) error {
			if _, err := s.Launch(func(c *kc.Job) error { // parks, and is woken long before a helper starts
				if err := c.Sleep(200 * time.Microsecond); err != nil {
					return err
				}
				close(ch)
				return nil
			}); err != nil {
				return err
			}
			if _, err := s.Launch(func(*kc.Job) error { <-ch; return nil }); err != nil { // blocks the owner
				return err
			}
			_, err := s.Launch(func(*kc.Job) error { runtime.LockOSThread(); return nil })
			return err
		})
	}, Workers(1), TempWorkers(0))
	if st := ex.Stats(); st.Helpers == 0 {
		t.Errorf("Stats: %+v; want a helper started", st)
	}
}

// A body on a context that calls runtime.Goexit with its thread locked
// ends its job with ErrGoexit; the context's exit, a switch to its
// driver, must not throw.
func TestCtxGoexitLocked(t *testing.T) {
	runOnContexts(t, func(j *kc.Job) error {
		return j.SupervisorScope(func(s *kc.Job) error {
			c, err := s.Launch(func(*kc.Job) error { runtime.LockOSThread(); runtime.Goexit(); return nil })
			if err != nil {
				return err
			}
			done := make(chan error, 1)
			go func() { done <- c.Join(nil) }()
			if err := <-done; !errors.Is(err, kc.ErrGoexit) {
				return fmt.Errorf("Join: %v; want ErrGoexit", err)
			}
			return nil
		})
	}, Workers(1))
}

// A context that never runs out of work flushes its count of ended tasks
// every maxEnded tasks, so the count cannot wrap.
func TestCtxEndedBounded(t *testing.T) {
	ex, err := New(Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	const extra = 5
	ex.active.Add(maxEnded + extra)
	defer ex.active.Add(-extra)
	x := &ctx{e: ex}
	for range maxEnded {
		x.endOne()
	}
	if got := ex.active.Load(); x.ended != 0 || got != extra {
		t.Errorf("after %d ends: ended %d, active %d; want 0 and %d", maxEnded, x.ended, got, extra)
	}
}
