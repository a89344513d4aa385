package kc_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestLazyDetachedNotCancelled guards that the parent's down flag applies
// to attached children only: a detached child keeps running, uncancelled
// (IsCancelled, Check, State, Err, Done all say so), after its parent was
// cancelled and became terminal without waiting for it; Runtime.Close still
// cancels a detached child that never ends by itself.
func TestLazyDetachedNotCancelled(t *testing.T) {
	testutil.NoLeak(t)
	rt := kc.New(goroutine.New())
	cause := errors.New("parent cancelled")
	stop := make(chan struct{})
	var sawCancel atomic.Bool
	var p, d, forever *kc.Job
	testutil.Watchdog(t, 10*time.Second, func() {
		err := rt.Run(context.Background(), func(root *kc.Job) error {
			ready, pGo := make(chan struct{}), make(chan struct{})
			p, _ = root.Launch(func(p *kc.Job) error {
				d, _ = p.Launch(func(d *kc.Job) error {
					for {
						if d.IsCancelled() {
							sawCancel.Store(true)
						}
						select {
						case <-stop:
							return d.Check()
						default:
							runtime.Gosched()
						}
					}
				}, kc.Detached())
				forever, _ = p.Launch(func(f *kc.Job) error { return f.Sleep(time.Hour) }, kc.Detached())
				close(ready)
				<-pGo
				return p.Check()
			})
			<-ready
			p.Cancel(cause)
			close(pGo)
			if err := p.Join(nil); !errors.Is(err, cause) {
				t.Errorf("parent Join = %v; want the cause", err)
			}
			if st := d.State(); st != kc.Active || d.IsCancelled() || d.Check() != nil || d.Err() != nil || isClosed(d.Done()) {
				t.Errorf("detached child after its parent ended cancelled: State %v, IsCancelled %v, Check %v, Err %v; want Active and not cancelled",
					st, d.IsCancelled(), d.Check(), d.Err())
			}
			close(stop)
			if err := d.Join(nil); err != nil {
				t.Errorf("detached Join = %v; want nil", err)
			}
			return nil
		})
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	if sawCancel.Load() || d.State() != kc.Completed {
		t.Errorf("detached child: saw IsCancelled %v, State %v; want false, Completed", sawCancel.Load(), d.State())
	}
	testutil.Watchdog(t, 10*time.Second, func() { rt.Close() })
	wantCancelledBy(t, "detached sleeper after Close", forever, kc.ErrClosed)
	checkTotals(t, rt, true)
}

// TestLazyShieldInUnlistedChild guards Shield against the lazy path: inside
// a shield an unlisted child does not see its parent's cancellation (not
// even after a Sleep lists it and takes the cancel, nor in a grandchild
// launched inside the shield); after the shield returns it does, and its
// grandchild is woken by the deferred walk.
func TestLazyShieldInUnlistedChild(t *testing.T) {
	testutil.NoLeak(t)
	for _, withSleep := range []bool{false, true} {
		rt := kc.New(goroutine.New())
		cause := errors.New("parent cancelled")
		var in, out struct {
			cancelled bool
			check     error
		}
		var sleepErr, shieldErr, gErr error
		var gInside bool
		var c, g *kc.Job
		testutil.Watchdog(t, 10*time.Second, func() {
			rt.Run(context.Background(), func(root *kc.Job) error {
				started, cancelled := make(chan struct{}), make(chan struct{})
				p, _ := root.Launch(func(p *kc.Job) error {
					c, _ = p.Launch(func(c *kc.Job) error {
						close(started)
						shieldErr = c.Shield(func() error {
							<-cancelled
							if withSleep {
								sleepErr = c.Sleep(time.Millisecond)
								g, _ = c.Launch(func(g *kc.Job) error { return g.Sleep(time.Hour) })
								gInside = g.IsCancelled()
							}
							in.cancelled, in.check = c.IsCancelled(), c.Check()
							return nil
						})
						out.cancelled, out.check = c.IsCancelled(), c.Check()
						if g != nil {
							gErr = g.Join(nil)
						}
						return nil
					})
					return nil
				})
				<-started
				p.Cancel(cause)
				close(cancelled)
				return nil
			})
		})
		if in.cancelled || in.check != nil || sleepErr != nil || shieldErr != nil || gInside {
			t.Errorf("sleep %v: inside Shield: IsCancelled %v, Check %v, Sleep %v, grandchild cancelled %v; Shield = %v; want nothing cancelled",
				withSleep, in.cancelled, in.check, sleepErr, gInside, shieldErr)
		}
		if !out.cancelled || !errors.Is(out.check, cause) {
			t.Errorf("sleep %v: after Shield: IsCancelled %v, Check %v; want true and the parent's cause", withSleep, out.cancelled, out.check)
		}
		wantCancelledBy(t, "shielded child", c, cause)
		if withSleep {
			if !errors.Is(gErr, cause) {
				t.Errorf("grandchild launched inside the shield: Join = %v; want the cause", gErr)
			}
		}
		rt.Close()
		checkTotals(t, rt, true)
	}
}

// TestLazyParentShieldDefersChildren guards that a parent's down flag is
// set by its cancel walk, not by the request: while the parent is inside
// Shield, an unlisted child that polls IsCancelled must not see the cancel;
// once the parent's shield ends, it must.
func TestLazyParentShieldDefersChildren(t *testing.T) {
	testutil.NoLeak(t)
	rt := kc.New(goroutine.New())
	cause := errors.New("parent cancelled")
	var early atomic.Bool
	var c *kc.Job
	testutil.Watchdog(t, 10*time.Second, func() {
		rt.Run(context.Background(), func(root *kc.Job) error {
			inShield, cancelled := make(chan struct{}), make(chan struct{})
			p, _ := root.Launch(func(p *kc.Job) error {
				started := make(chan struct{})
				c, _ = p.Launch(func(c *kc.Job) error {
					close(started)
					for !c.IsCancelled() {
						runtime.Gosched()
					}
					return nil
				})
				<-started
				return p.Shield(func() error {
					close(inShield)
					<-cancelled
					for range 2000 {
						if c.IsCancelled() || c.State() != kc.Active || c.Check() != nil {
							early.Store(true)
						}
						runtime.Gosched()
					}
					return nil
				})
			})
			<-inShield
			p.Cancel(cause)
			close(cancelled)
			return nil
		})
	})
	if early.Load() {
		t.Error("an unlisted child saw its parent's cancellation while the parent was inside Shield")
	}
	wantCancelledBy(t, "child", c, cause)
	rt.Close()
	checkTotals(t, rt, true)
}

// TestLazyLeaseOnUnlistedChild guards leases on unlisted jobs: a child
// whose body returned while a lease holds it stays Closing; its parent's
// cancel then shows it Cancelling, and the release ends it Cancelled (the
// finish takes the missed cancel). Releasing twice is harmless, a lease on a
// terminal job is ErrClosed, and a double release of one lease never drops
// another lease's hold.
func TestLazyLeaseOnUnlistedChild(t *testing.T) {
	testutil.NoLeak(t)
	rt := kc.New(goroutine.New())
	cause := errors.New("parent cancelled")
	testutil.Watchdog(t, 10*time.Second, func() {
		err := rt.Run(context.Background(), func(root *kc.Job) error {
			type leased struct {
				c   *kc.Job
				rel func()
			}
			leases := make(chan leased, 1)
			p, _ := root.Launch(func(p *kc.Job) error {
				p.Launch(func(c *kc.Job) error {
					rel, err := c.Lease()
					if err != nil {
						t.Errorf("Lease in a running body: %v", err)
					}
					leases <- leased{c, rel}
					return nil
				})
				return nil
			})
			l := <-leases
			c, rel := l.c, l.rel
			for c.State() != kc.Closing {
				runtime.Gosched() // the body returns; the lease keeps the child from finishing
			}
			p.Cancel(cause)
			if st := c.State(); st != kc.Cancelling || !c.IsCancelled() || p.State().Terminal() {
				t.Errorf("leased child after the parent's cancel: State %v, IsCancelled %v, parent %v; want Cancelling, true, not terminal",
					st, c.IsCancelled(), p.State())
			}
			rel()
			p.Join(nil)
			wantCancelledBy(t, "leased child", c, cause)
			wantCancelledBy(t, "parent", p, cause)
			rel() // harmless
			if _, err := c.Lease(); !errors.Is(err, kc.ErrClosed) {
				t.Errorf("Lease on a terminal job = %v; want ErrClosed", err)
			}

			n, _ := root.Open()
			r1, _ := n.Lease()
			r2, _ := n.Lease()
			r1()
			r1()
			if err := n.WaitAll(0); !errors.Is(err, kc.ErrAgain) {
				t.Errorf("WaitAll(0) with one lease left after a double release = %v; want ErrAgain", err)
			}
			n.Close()
			if st := n.State(); st != kc.Closing {
				t.Errorf("closed nursery with one lease held: %v; want Closing", st)
			}
			r2()
			if st := n.State(); st != kc.Completed {
				t.Errorf("nursery after its last lease: %v; want Completed", st)
			}
			return nil
		})
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	rt.Close()
	if s := checkTotals(t, rt, true); s.CancellationsRequested != 2 {
		t.Errorf("CancellationsRequested = %d; want 2 (parent, leased child)", s.CancellationsRequested)
	}
}
