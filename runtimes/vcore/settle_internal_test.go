package vcore

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// An executor with nothing to do settles: once no task is active, every
// core's owner sleeps or has passed the core on (Sleeping or Free), and no
// goroutine counts as retaken. A core left Running with no goroutine behind
// it (an owner that ended without passing its core on, or a core handed to
// a context that went on under another) is never retaken while nothing
// waits for it, so it shows here as a core that never settles.
func TestCoresSettle(t *testing.T) {
	for _, tc := range []struct {
		name string
		body kc.Func
	}{
		// An owner that ends through a body's Goexit passes its core on (exit).
		{"Goexit", func(j *kc.Job) error {
			return j.SupervisorScope(func(s *kc.Job) error { // the children's failures stay there
				for range 4 {
					c, err := s.Launch(func(*kc.Job) error { runtime.Goexit(); return nil })
					if err != nil {
						return err
					}
					joined := make(chan error) // Join(nil) from a goroutine: a Join from s could run c inline, on s's goroutine
					go func() { joined <- c.Join(nil) }()
					if err := <-joined; !errors.Is(err, kc.ErrGoexit) {
						return fmt.Errorf("Join of a child that called Goexit: got %v; want ErrGoexit", err)
					}
				}
				return nil
			})
		}},
		// Woken contexts resumed on whichever core takes them first,
		// theirs or another (switchTo, a steal of a ready context).
		{"ParkAndWake", func(j *kc.Job) error {
			for range 20 {
				nur, err := j.Open()
				if err != nil {
					return err
				}
				for range 200 {
					if _, err := nur.Launch(func(c *kc.Job) error { return c.Sleep(time.Hour) }); err != nil {
						return err
					}
				}
				nur.Cancel(nil)
				nur.Join(j)
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := New(Workers(2))
			if err != nil {
				t.Fatal(err)
			}
			rt := kc.New(ex)
			defer testutil.Watchdog(t, 10*time.Second, func() { rt.Close() })
			if err := rt.Run(context.Background(), tc.body); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(5 * time.Second) // a watchdog: owners settle within their spin
			for {
				why := unsettled(ex)
				if why == "" {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("5 s after Run returned: %s; want every core Sleeping or Free and nothing retaken", why)
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
}

// unsettled says why ex has not settled (see TestCoresSettle), or "".
func unsettled(ex *Executor) string {
	if a := ex.active.Load(); a != 0 {
		return fmt.Sprintf("%d tasks active", a)
	}
	for i := range ex.cores {
		if s := stateOf(ex.cores[i].word.Load()); s != coreSleeping && s != coreFree {
			return fmt.Sprintf("core %d is in state %d", i, s)
		}
	}
	if r := ex.retaken.Load(); r != 0 {
		return fmt.Sprintf("retaken is %d", r)
	}
	return ""
}
