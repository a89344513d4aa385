package stealing

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Yield's count of Yields in a row that found nothing queued (the trigger
// of goruntime.OSYield) counts up to osYieldAfter and stays there while
// the task polls, and starts again after the coroutine suspends (a Sleep) and
// after a Yield that found work queued. A count that never reset would
// make every Yield of a task that once polled pay a system call. The
// checks run in the root body, which returns what fails.
func TestIdleYieldsCount(t *testing.T) {
	if !goruntime.GOK {
		t.Skip("no goroutine identities on this architecture: Yield is runtime.Gosched")
	}
	e, err := New(Workers(1), MaxExtra(0))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(e)
	defer rt.Close()
	self := func() *coro { return e.gt.lookup(goruntime.G()) }
	err = rt.Run(context.Background(), func(j *kc.Job) error {
		if self() == nil {
			return errors.New("the root body does not run on a loop coroutine")
		}
		for i := 1; i <= osYieldAfter+5; i++ {
			if err := j.Yield(); err != nil {
				return err
			}
			if got, want := self().idleYields, min(i, osYieldAfter); int(got) != want {
				return fmt.Errorf("after %d idle Yields: count %d, want %d", i, got, want)
			}
		}
		if err := j.Sleep(time.Millisecond); err != nil {
			return err
		}
		if got := self().idleYields; got != 0 {
			return fmt.Errorf("after a Sleep: count %d, want 0", got)
		}
		for range osYieldAfter {
			if err := j.Yield(); err != nil {
				return err
			}
		}
		var ran atomic.Bool
		if _, err := j.Launch(func(*kc.Job) error { ran.Store(true); return nil }); err != nil {
			return err
		}
		for !ran.Load() { // the first Yield goes to the yield list and the task runs
			if err := j.Yield(); err != nil {
				return err
			}
		}
		if got := self().idleYields; got != 0 {
			return fmt.Errorf("after a Yield that found a task queued: count %d, want 0", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
