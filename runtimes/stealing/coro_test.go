package stealing_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
	"github.com/kcbench/kcbench/runtimes/stealing"
)

// parkMany runs n children that each Join a gate job sleeping for an hour,
// waits until at least n loop coroutines are live (the joins suspended
// their coroutines, which needs goroutine identities: where goruntime.GOK
// is false, the joins block instead and only the count is skipped), then
// cancels the gate, which wakes every join at once.
func parkMany(t *testing.T, ex *stealing.Executor, rt *kc.Runtime, n int) {
	t.Helper()
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		gate, err := j.Launch(func(g *kc.Job) error { return g.Sleep(time.Hour) })
		if err != nil {
			return err
		}
		for range n {
			if _, err := j.Launch(func(c *kc.Job) error {
				if err := gate.Join(c); !errors.Is(err, kc.ErrCancelled) {
					return err
				}
				return nil
			}); err != nil {
				return err
			}
		}
		if goruntime.GOK {
			deadline := time.Now().Add(10 * time.Second)
			for {
				live, _, _ := stealing.CoroCounts(ex)
				if live >= n {
					break
				}
				if time.Now().After(deadline) {
					t.Errorf("%d loop coroutines live after 10s; want at least %d (one per parked join)", live, n)
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
		gate.Cancel(nil)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Parked joins hold coroutines, which the g table follows: it grows past
// the count, and once the load ends and the monitor has trimmed the idle
// pool, the pool and the table shrink again.
func TestParkedCoroutinesTrimmed(t *testing.T) {
	if !goruntime.GOK {
		t.Skip("no goroutine identities on this architecture: tasks park by blocking")
	}
	testutil.NoLeak(t)
	ex, rt := newExecutorRuntime(t, stealing.Workers(2))
	defer rt.Close()
	const n = 5000
	testutil.Watchdog(t, 60*time.Second, func() { parkMany(t, ex, rt, n) })
	_, capacity, pooled := stealing.CoroCounts(ex)
	if capacity < n || pooled < n/2 {
		t.Errorf("after %d parked joins: table capacity %d, idle pool %d; want capacity at least %d and a pool of at least %d", n, capacity, pooled, n, n/2)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		live, capacity, pooled := stealing.CoroCounts(ex)
		if pooled == 0 && capacity == stealing.GMinCap {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("20s after the load: %d live, table capacity %d, idle pool %d; want the pool trimmed to 0 and the table shrunk to %d", live, capacity, pooled, stealing.GMinCap)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Close with a full idle pool stops every coroutine in it: no goroutine is
// left (NoLeak) and the g table is empty.
func TestCloseStopsCoroutines(t *testing.T) {
	testutil.NoLeak(t)
	ex, rt := newExecutorRuntime(t)
	testutil.Watchdog(t, 60*time.Second, func() { parkMany(t, ex, rt, 2000) })
	rt.Close()
	if live, _, pooled := stealing.CoroCounts(ex); live != 0 || pooled != 0 {
		t.Errorf("after Close: %d loop coroutines live, %d pooled; want 0 and 0", live, pooled)
	}
}

// A body that parks (its coroutine suspends and is resumed) and then calls
// runtime.Goexit fails its job with ErrGoexit and ends its driver; the
// executor replaces it and goes on. Many rounds, from several parents.
func TestGoexitAfterResume(t *testing.T) {
	testutil.NoLeak(t)
	rt := newRuntime(t, stealing.Workers(2), stealing.MaxExtra(0))
	defer rt.Close()
	testutil.Watchdog(t, 60*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			for range 200 {
				c, err := j.Launch(func(c *kc.Job) error {
					if err := c.Sleep(time.Microsecond); err != nil {
						return err
					}
					runtime.Goexit()
					return nil
				}, kc.Detached())
				if err != nil {
					return err
				}
				d, err := kc.Async(j, func(d *kc.Job) (int, error) { return 1, d.Sleep(time.Microsecond) })
				if err != nil {
					return err
				}
				if err := c.Join(j); !errors.Is(err, kc.ErrGoexit) {
					t.Errorf("Join of a body that parked and then called Goexit: %v; want ErrGoexit", err)
				}
				if v, err := d.Await(j); v != 1 || err != nil {
					t.Errorf("Await next to it: %v, %v; want 1, nil", v, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
}

// A body locked to its OS thread must not have its coroutine suspended (the
// runtime throws if a coroutine switch changes the thread lock): its waits
// block instead, and it keeps its lock across them.
func TestLockedBodyParks(t *testing.T) {
	testutil.NoLeak(t)
	rt := newRuntime(t, stealing.Workers(2))
	defer rt.Close()
	testutil.Watchdog(t, 30*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			for range 50 {
				if _, err := j.Launch(func(c *kc.Job) error {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					if err := c.Sleep(time.Microsecond); err != nil {
						return err
					}
					if !goruntime.LockedOSThread() {
						return errors.New("the body lost its thread lock across a Sleep")
					}
					return c.Scope(func(s *kc.Job) error {
						_, err := s.Launch(func(g *kc.Job) error { return g.Sleep(time.Microsecond) })
						return err
					})
				}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
}

// Bodies that return with their thread still locked (LockOSThread without
// Unlock) run among bodies that park: the loop coroutine must not switch
// with the lock held (the runtime would throw), so the executor drops the
// lock before it switches, and everything finishes.
func TestBodyLeavesThreadLocked(t *testing.T) {
	testutil.NoLeak(t)
	rt := newRuntime(t, stealing.Workers(2))
	defer rt.Close()
	testutil.Watchdog(t, 30*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			for i := range 200 {
				if _, err := j.Launch(func(c *kc.Job) error {
					if i%2 == 0 {
						runtime.LockOSThread()
						runtime.LockOSThread() // nested: both are dropped
						return nil
					}
					return c.Sleep(time.Microsecond)
				}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
}

// Coroutines woken together form one ready chain. If the first of them to
// run then blocks in a channel wait (Park's blocking path, not a suspend),
// the rest of the chain must still run on another worker: the last of them
// is the one that sends to it. A chain kept by the blocked driver hangs
// here (the watchdog reports it).
func TestReadyChainNotStranded(t *testing.T) {
	testChainNotStranded(t, func() (first, last func(c *kc.Job) error) {
		ch, err := kc.NewChan[int](0)
		if err != nil {
			t.Fatal(err)
		}
		first = func(c *kc.Job) error { // blocks its driver until the last one sends
			_, err := ch.Recv(c)
			return err
		}
		return first, func(c *kc.Job) error { return ch.Send(c, 1) }
	})
}

// As TestReadyChainNotStranded, but the first waiter to run blocks in a
// plain Go channel receive, where the runtime cannot see it (no Park):
// the rest of its chain must still be where other workers (and the
// monitor) find it, since the last of them closes the channel.
func TestReadyChainNotStrandedGoChannel(t *testing.T) {
	testChainNotStranded(t, func() (first, last func(c *kc.Job) error) {
		goch := make(chan struct{})
		first = func(*kc.Job) error { <-goch; return nil } // blocks its driver until the last one closes it
		return first, func(*kc.Job) error { close(goch); return nil }
	})
}

// testChainNotStranded runs 50 rounds on two workers: one full ready
// chain of waiters parks on a gate job and is woken at once by the gate's
// cancellation; the first waiter to run then calls first, which blocks
// until the last one calls last. round makes each round's pair.
func testChainNotStranded(t *testing.T, round func() (first, last func(c *kc.Job) error)) {
	testutil.NoLeak(t)
	rt := newRuntime(t, stealing.Workers(2))
	defer rt.Close()
	const waiters = 8 // one full ready chain
	testutil.Watchdog(t, 30*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			for range 50 {
				gate, err := j.Launch(func(g *kc.Job) error { return g.Sleep(time.Hour) })
				if err != nil {
					return err
				}
				var ran atomic.Int32
				first, last := round()
				before := rt.Stats()
				var ws []*kc.Job
				for range waiters {
					w, err := j.Launch(func(c *kc.Job) error {
						if err := gate.Join(c); !errors.Is(err, kc.ErrCancelled) {
							return err
						}
						switch ran.Add(1) {
						case 1:
							return first(c)
						case waiters:
							return last(c)
						}
						return nil
					})
					if err != nil {
						return err
					}
					ws = append(ws, w)
				}
				for { // every waiter parked on the gate
					s := rt.Stats()
					if s.WaitersRegistered-before.WaitersRegistered >= waiters {
						break
					}
					runtime.Gosched()
				}
				gate.Cancel(nil)
				for _, w := range ws {
					if err := w.Join(j); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
}
