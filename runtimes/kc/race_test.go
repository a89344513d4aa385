package kc_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Children whose bodies return at once race with everything a second
// goroutine can do to them: the lock-free fast finish must lose to (or be
// seen by) each of Join, Cancel, Done, OnCancel and Lease.
func TestFastFinishRaces(t *testing.T) {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	ops := []struct {
		name string
		do   func(w, c *kc.Job) error
	}{
		{"Join", func(w, c *kc.Job) error {
			if err := c.Join(nil); err != nil || c.State() != kc.Completed {
				return errors.New("Join returned before Completed")
			}
			return nil
		}},
		{"Cancel", func(w, c *kc.Job) error {
			moved := c.Cancel(nil)
			c.Join(nil)
			if st := c.State(); moved && st != kc.Cancelled || !moved && st != kc.Completed {
				return errors.New("Cancel result disagrees with final state " + st.String())
			}
			return nil
		}},
		{"Done", func(w, c *kc.Job) error {
			<-c.Done() // must close: the job ends either way
			return nil
		}},
		{"OnCancel", func(w, c *kc.Job) error {
			ran := make(chan struct{}, 1)
			stop := c.OnCancel(func() { ran <- struct{}{} })
			c.Join(nil)
			if len(ran) != 0 {
				return errors.New("OnCancel ran for a job nobody cancelled")
			}
			if !stop() {
				return errors.New("stop = false for a callback that never ran")
			}
			return nil
		}},
		{"Lease", func(w, c *kc.Job) error {
			release, err := c.Lease()
			if err != nil { // the job was already terminal: fine
				return nil
			}
			time.Sleep(time.Microsecond)
			if c.State().Terminal() {
				return errors.New("terminal while a lease is held")
			}
			release()
			return c.Join(nil)
		}},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			testutil.Watchdog(t, 20*time.Second, func() {
				err := rt.Run(context.Background(), func(j *kc.Job) error {
					var wg sync.WaitGroup
					errs := make(chan error, 1)
					for range 2000 {
						c, err := j.Launch(func(*kc.Job) error { return nil })
						if err != nil {
							return err
						}
						wg.Add(1)
						go func() {
							defer wg.Done()
							if err := op.do(j, c); err != nil {
								select {
								case errs <- err:
								default:
								}
							}
						}()
					}
					wg.Wait()
					close(errs)
					return <-errs
				})
				if err != nil {
					t.Error(err)
				}
			})
			if s := rt.Stats(); s.WaitersRegistered != s.WaitersWoken {
				t.Errorf("WaitersRegistered %d != WaitersWoken %d", s.WaitersRegistered, s.WaitersWoken)
			}
		})
	}
}
