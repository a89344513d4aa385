package vcore_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kcbench/kcbench/conformance"
	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
	"github.com/kcbench/kcbench/runtimes/vcore"
)

func newRT(t *testing.T, opts ...vcore.Option) (*kc.Runtime, *vcore.Executor) {
	t.Helper()
	ex, err := vcore.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return kc.New(ex), ex
}

func TestOptionErrors(t *testing.T) {
	for _, o := range []vcore.Option{vcore.Workers(0), vcore.Workers(vcore.MaxWorkers + 1),
		vcore.Spin(-1), vcore.Spin(time.Hour), vcore.TempWorkers(-1), nil} {
		ex, err := vcore.New(o)
		var oe *vcore.OptionError
		if ex != nil || !errors.Is(err, vcore.ErrOption) || !errors.As(err, &oe) {
			t.Errorf("New with a bad option: got %v, %v; want nil and an *OptionError", ex, err)
		}
	}
}

// Tasks on one core ping-pong through a rendezvous channel and join
// siblings they did not launch (no inline run): every wake-up must arrive.
func TestNoLostWakeup(t *testing.T) {
	for _, workers := range []int{1, 2, 3} {
		rt, _ := newRT(t, vcore.Workers(workers), vcore.Spin(0)) // Spin(0): sleep at once, the racy path
		testutil.Watchdog(t, 20*time.Second, func() {
			err := rt.Run(context.Background(), func(j *kc.Job) error {
				ping, _ := kc.NewChan[int](0)
				pong, _ := kc.NewChan[int](0)
				const rounds = 2000
				if _, err := j.Launch(func(c *kc.Job) error {
					for range rounds {
						v, err := ping.Recv(c)
						if err != nil {
							return err
						}
						if err := pong.Send(c, v+1); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					return err
				}
				for i := range rounds {
					if err := ping.Send(j, i); err != nil {
						return err
					}
					if v, err := pong.Recv(j); err != nil || v != i+1 {
						t.Errorf("round %d: got %d, %v; want %d", i, v, err, i+1)
						return err
					}
				}
				var prev *kc.Job
				for range 500 {
					p := prev
					next, err := j.Launch(func(c *kc.Job) error {
						if p != nil {
							return p.Join(c)
						}
						return nil
					})
					if err != nil {
						return err
					}
					prev = next
				}
				return prev.Join(j)
			})
			if err != nil {
				t.Errorf("Workers(%d): Run: %v", workers, err)
			}
			if err := rt.Close(); err != nil {
				t.Error(err)
			}
		})
	}
}

// With one core, a body blocked on a Go channel holds it; the body that
// would unblock it is queued behind. Only sysmon's retake can save it.
func TestSysmonRescuesGoChannel(t *testing.T) {
	rt, ex := newRT(t, vcore.Workers(1))
	testutil.Watchdog(t, 10*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			ch := make(chan int)
			var got atomic.Int64
			return j.Scope(func(s *kc.Job) error {
				for range 3 {
					if _, err := s.Launch(func(*kc.Job) error { got.Add(int64(<-ch)); return nil }); err != nil {
						return err
					}
				}
				_, err := s.Launch(func(*kc.Job) error {
					for i := range 3 {
						ch <- i + 1
					}
					return nil
				})
				return err
			})
		})
		if err != nil {
			t.Error(err)
		}
		if err := rt.Close(); err != nil {
			t.Error(err)
		}
	})
	if st := ex.Stats(); st.Retakes == 0 || st.Active != 0 {
		t.Errorf("Stats after the rescue: %+v; want Retakes > 0 and Active 0", st)
	}
}

// With no retakes allowed (TempWorkers(0)) and one core, 2000 bodies each
// block on a Go channel until the one launched after them closes it, the
// releasing one launched last: only helpers can get them all going, and
// none may be left after Close.
func TestHelpersPastTempWorkers(t *testing.T) {
	testutil.NoLeak(t)
	rt, ex := newRT(t, vcore.Workers(1), vcore.TempWorkers(0))
	const n = 2000
	testutil.Watchdog(t, 20*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			links := make([]chan struct{}, n)
			for i := range links {
				links[i] = make(chan struct{})
			}
			return j.Scope(func(s *kc.Job) error {
				for k := 1; k <= n; k++ {
					i := k % n // the releasing task 0 last
					if _, err := s.Launch(func(*kc.Job) error {
						if i > 0 {
							<-links[i-1]
						}
						close(links[i])
						return nil
					}); err != nil {
						return err
					}
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
	if st := ex.Stats(); st.Helpers == 0 || st.Retakes != 0 || st.Active != 0 {
		t.Errorf("Stats after the chain: %+v; want Helpers > 0, Retakes 0 and Active 0", st)
	}
}

// A body that calls runtime.Goexit ends its goroutine; the core goes on.
func TestGoexitKeepsCore(t *testing.T) {
	rt, _ := newRT(t, vcore.Workers(1))
	testutil.Watchdog(t, 10*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			c, err := j.Launch(func(*kc.Job) error { runtime.Goexit(); return nil }, kc.Supervisor())
			if err != nil {
				return err
			}
			c.Join(nil)
			for range 100 {
				if _, err := j.Launch(func(*kc.Job) error { return nil }); err != nil {
					return err
				}
			}
			return nil
		})
		if !errors.Is(err, kc.ErrGoexit) {
			t.Errorf("Run: got %v; want ErrGoexit from the child", err)
		}
		rt.Close()
	})
}

// Close ends every goroutine the executor started, including the owners
// of every core and the goroutines of tasks that parked.
func TestNoGoroutineLeft(t *testing.T) {
	testutil.NoLeak(t)
	rt, _ := newRT(t, vcore.Workers(4))
	testutil.Watchdog(t, 10*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			for range 50 {
				if _, err := j.Launch(func(c *kc.Job) error { return c.Sleep(time.Millisecond) }); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		rt.Close()
		rt.Close() // idempotent
	})
}

func TestPinning(t *testing.T) {
	ex, err := vcore.New(vcore.Pinning(true), vcore.Workers(2))
	var pe *vcore.PinError
	if runtime.GOOS != "linux" {
		if !errors.As(err, &pe) || !errors.Is(err, vcore.ErrPinningUnsupported) {
			t.Fatalf("New(Pinning(true)) on %s: got %v; want a *PinError matching ErrPinningUnsupported", runtime.GOOS, err)
		}
		return
	}
	if errors.As(err, &pe) && (errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSYS)) {
		t.Skipf("the sandbox refuses affinity syscalls: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(ex)
	testutil.Watchdog(t, 10*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			for range 200 {
				d, err := kc.Async(j, func(*kc.Job) (int, error) { return 1, nil })
				if err != nil {
					return err
				}
				if _, err := d.Await(j); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		rt.Close()
	})
	if n := ex.Stats().PinErrors; n != 0 {
		t.Errorf("PinErrors: got %d; want 0", n)
	}
}

// The whole conformance suite with one P: owners are locked threads that
// must spin, sleep and hand off without the Go scheduler's help.
func TestGOMAXPROCS1(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole suite; skipped with -short")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	err := conformance.Test(func() (*kc.Runtime, error) {
		ex, err := vcore.New()
		if err != nil {
			return nil, err
		}
		return kc.New(ex, kc.WithName("vcore")), nil
	})
	if err != nil {
		t.Error(err)
	}
}

// TestOwnersReuseGoroutines checks that the owners Park starts run on
// pooled goroutines once earlier ones have retired, and that Close still
// ends every goroutine, the pooled ones included.
func TestOwnersReuseGoroutines(t *testing.T) {
	testutil.NoLeak(t)
	rt, ex := newRT(t, vcore.Workers(2))
	testutil.Watchdog(t, 10*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			for range 20 {
				for range 16 {
					if _, err := j.Launch(func(c *kc.Job) error { return c.Sleep(50 * time.Microsecond) }); err != nil {
						return err
					}
				}
				if err := j.WaitAll(-1); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		st := ex.Stats()
		if st.Handoffs == 0 || st.Reused == 0 || st.Reused > st.WorkersStarted {
			t.Errorf("stats after 320 sleeping tasks: %d handoffs, %d of %d owners on reused goroutines; want handoffs, and some owners reused but no more than were started", st.Handoffs, st.Reused, st.WorkersStarted)
		}
		rt.Close()
	})
}
