package stealing_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/conformance"
	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
	"github.com/kcbench/kcbench/runtimes/stealing"
)

func newRuntime(t *testing.T, opts ...stealing.Option) *kc.Runtime {
	t.Helper()
	_, rt := newExecutorRuntime(t, opts...)
	return rt
}

// newExecutorRuntime is newRuntime for a test that also inspects the
// executor (Snapshot, DumpRings).
func newExecutorRuntime(t *testing.T, opts ...stealing.Option) (*stealing.Executor, *kc.Runtime) {
	t.Helper()
	ex, err := stealing.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return ex, kc.New(ex)
}

func TestBadInput(t *testing.T) {
	for _, o := range []stealing.Option{stealing.Workers(0), stealing.Workers(-3), stealing.Workers(1 << 20), stealing.MaxExtra(-1), stealing.MaxExtra(1<<20 + 1), nil} {
		ex, err := stealing.New(o)
		var oe *stealing.OptionError
		if ex != nil || !errors.Is(err, stealing.ErrOption) || !errors.As(err, &oe) {
			t.Errorf("New with a bad option: got %v, %v; want nil and an *OptionError", ex, err)
		}
	}
	ex, err := stealing.New(stealing.Workers(stealing.MaxWorkers), stealing.MaxExtra(0))
	if err != nil {
		t.Fatal(err)
	}
	mustPanic(t, "Spawn(nil)", func() { ex.Spawn(nil) })
	mustPanic(t, "Park(nil)", func() { ex.Park(nil) })
	ex.Close()
	ex.Close() // idempotent
	mustPanic(t, "Spawn after Close", func() { ex.Spawn(new(kc.Task)) })
	var zero stealing.Executor
	mustPanic(t, "Spawn on the zero Executor", func() { zero.Spawn(new(kc.Task)) })
	if err := zero.Close(); err != nil {
		t.Errorf("Close of the zero Executor: %v", err)
	}
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}

// A body blocks on a Go channel that only its child will send on, with one
// worker: only the monitor's temporary worker can run the child, which sits
// in the LIFO slot of whichever P the body ran on (up to P 15 here).
func TestMonitorRescuesGoChannel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{runtime.GOMAXPROCS(0), 16} {
		t.Run(fmt.Sprint("procs=", procs), func(t *testing.T) {
			runtime.GOMAXPROCS(procs)
			testutil.NoLeak(t)
			rt := newRuntime(t, stealing.Workers(1))
			defer rt.Close()
			testutil.Watchdog(t, 20*time.Second, func() {
				err := rt.Run(context.Background(), func(j *kc.Job) error {
					for range 20 {
						ch := make(chan int)
						if _, err := j.Launch(func(*kc.Job) error { ch <- 1; return nil }); err != nil {
							return err
						}
						<-ch // invisible to the runtime
					}
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			})
		})
	}
}

// Workers go idle between bursts spawned from inside and from outside the
// runtime; a lost wakeup would leave a burst unrun and hang the test.
func TestNoLostWakeup(t *testing.T) {
	testutil.NoLeak(t)
	rt := newRuntime(t)
	defer rt.Close()
	testutil.Watchdog(t, 20*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			for round := range 2000 {
				nur, err := j.Open()
				if err != nil {
					return err
				}
				var wg sync.WaitGroup
				for range round%5 + 1 {
					wg.Go(func() { // a spawn from outside any worker
						if _, err := nur.Launch(func(*kc.Job) error { return nil }); err != nil {
							t.Error(err)
						}
					})
				}
				for range round % 3 {
					if _, err := nur.Launch(func(*kc.Job) error { return nil }); err != nil {
						return err
					}
				}
				wg.Wait()
				if err := nur.AwaitAll(j); err != nil {
					return err
				}
				if round%100 == 0 {
					time.Sleep(100 * time.Microsecond) // let every worker go idle
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
}

// A spawner that never gives its worker back (it polls for its children
// with runtime.Gosched, which the executor cannot see) needs Spawn's wake:
// with no monitor (with MaxExtra(0) it would still move the stuck task to
// the injector and wake a worker for it), if a Spawn missed the idle
// worker, the round would not finish until the spawner gave up
// (a generous 10 s; then its worker runs them). Each round spawns one to
// four tasks, so it covers both the LIFO slot alone and tasks it displaces
// to the FIFO (put's plain tail store), and finds the other worker running,
// spinning or idle, as it happens; every 300th round sleeps first, so that
// it surely is idle. Without the wake in Spawn the test fails at once: not
// even the root job starts, and the watchdog reports it.
//
// Run with the package's other tests under -race (GOMAXPROCS=2), it failed
// three times in about 400 runs: a round's second task stayed in a LIFO slot,
// with a worker slot free, no worker spinning and two idle. That was wake
// giving back a provisional slot that a retiring worker had counted (see
// wake; TestWakeOvershootRetire replays that interleaving step by step).
// The failure message dumps the counters and the rings. It takes about
// 0.1 s under -race.
func TestWakeWithoutBackstop(t *testing.T) {
	testutil.NoLeak(t)
	ex, rt := newExecutorRuntime(t, stealing.Workers(2), stealing.WithoutMonitor())
	defer rt.Close()
	testutil.Watchdog(t, 20*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			for round := range 3000 {
				if round%300 == 0 {
					time.Sleep(200 * time.Microsecond) // the other worker goes idle
				}
				var ran atomic.Int32
				k := int32(round%4 + 1)
				for range k {
					if _, err := j.Launch(func(*kc.Job) error { ran.Add(1); return nil }); err != nil {
						return err
					}
				}
				for giveUp := time.Now().Add(10 * time.Second); ran.Load() < k; {
					if time.Now().After(giveUp) {
						return fmt.Errorf("round %d: %d of %d tasks ran in 10s: a lost wake-up; %+v\n%s", round, ran.Load(), k, stealing.Snapshot(ex), stealing.DumpRings(ex))
					}
					runtime.Gosched()
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
}

// Many bodies wait for each other through the runtime (Join of siblings)
// and many more block where it cannot see (a barrier): compensation and
// the monitor must keep it going, and every goroutine must end at Close.
func TestBlockingMix(t *testing.T) {
	testutil.NoLeak(t)
	rt := newRuntime(t, stealing.Workers(2))
	testutil.Watchdog(t, 20*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			const n = 16
			var barrier sync.WaitGroup
			barrier.Add(n)
			return j.Scope(func(s *kc.Job) error {
				var prev *kc.Job
				for range n {
					p := prev
					c, err := s.Launch(func(c *kc.Job) error {
						barrier.Done()
						barrier.Wait()
						if p != nil {
							return p.Join(c)
						}
						return nil
					})
					if err != nil {
						return err
					}
					prev = c
				}
				return nil
			})
		})
		if err != nil {
			t.Error(err)
		}
		if err := rt.Close(); err != nil {
			t.Error(err)
		}
	})
}

// The whole suite at GOMAXPROCS=1, and with GOMAXPROCS raised past the
// number of rings the executor was made with (spawns from the new Ps go
// through the injector).
func TestConformanceGOMAXPROCS(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		name      string
		new, runs int
	}{{"1", 1, 1}, {"grown", 1, 4}, {"shrunk", 4, 1}, {"16", 16, 16}} {
		t.Run(tc.name, func(t *testing.T) {
			runtime.GOMAXPROCS(tc.new)
			newRT := func() (*kc.Runtime, error) {
				ex, err := stealing.New()
				if err != nil {
					return nil, err
				}
				runtime.GOMAXPROCS(tc.runs)
				return kc.New(ex), nil
			}
			if err := conformance.Test(newRT); err != nil {
				t.Error(err)
			}
		})
	}
}

// Two tasks that keep spawning each other keep the LIFO slot full; a task
// waiting in the FIFO behind them must still run: every 61st task taken
// from a ring is its oldest FIFO entry, however many workers took the 60
// before (temporary workers come and go when the host is busy). One P, so
// there is one ring and the count is exact.
func TestFIFONotStarved(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	testutil.NoLeak(t)
	rt := newRuntime(t, stealing.Workers(1))
	defer rt.Close()
	testutil.Watchdog(t, 20*time.Second, func() {
		var ran atomic.Bool
		var n atomic.Int64
		var ping kc.Func
		ping = func(j *kc.Job) error {
			n.Add(1)
			if ran.Load() {
				return nil
			}
			_, err := j.Launch(ping)
			return err
		}
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			if _, err := j.Launch(func(*kc.Job) error { ran.Store(true); return nil }); err != nil {
				return err
			}
			_, err := j.Launch(ping)
			return err
		})
		if err != nil {
			t.Error(err)
		}
		// Not a timing bound: the ring gives its FIFO task at its 61st take
		// at the latest (the root and the pings are the takes before it).
		if got := n.Load(); got > 2*61 {
			t.Errorf("the FIFO task ran after %d picks of the LIFO slot; want at most %d", got, 2*61)
		}
	})
}

// After work that needed temporary workers (a body blocked on a Go channel)
// and parked tasks (debt), an idle executor settles: no worker running or
// spinning, no temporary worker granted, no debt, the monitor asleep. So it
// burns no CPU while idle.
func TestIdleSettles(t *testing.T) {
	testutil.NoLeak(t)
	ex, rt := newExecutorRuntime(t, stealing.Workers(1))
	defer rt.Close()
	testutil.Watchdog(t, 20*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			ch := make(chan int)
			if _, err := j.Launch(func(*kc.Job) error { ch <- 1; return nil }); err != nil {
				return err
			}
			<-ch // needs the monitor
			d, err := kc.Async(j, func(c *kc.Job) (int, error) { return 1, c.Sleep(time.Millisecond) })
			if err != nil {
				return err
			}
			_, err = d.Await(j) // the sleeper parks and comes back as debt
			return err
		})
		if err != nil {
			t.Error(err)
		}
		var s stealing.State
		for {
			s = stealing.Snapshot(ex)
			if s.Running == 0 && s.Spinning == 0 && s.Extra == 0 && s.Debt == 0 && s.MonitorAsleep {
				return
			}
			time.Sleep(time.Millisecond) // the watchdog fails the test if it never settles
		}
	})
}
