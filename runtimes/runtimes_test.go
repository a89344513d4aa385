package runtimes_test

import (
	"context"
	"errors"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Backends named with testBackendPrefix are registered by this package's tests;
// TestConformance leaves them out.
const testBackendPrefix = "zz-test-"

var (
	errRefused      = errors.New("refused")
	registerRefused sync.Once // Register panics on a second call (go test -count)
)

// TestNewConstructorError checks that a backend constructor's error is
// New's error (wrapped, so errors.Is still finds it) and that no runtime is
// made.
func TestNewConstructorError(t *testing.T) {
	registerRefused.Do(func() {
		runtimes.Register(testBackendPrefix+"refusing", func() (kc.Executor, error) { return nil, errRefused })
	})
	rt, err := runtimes.New("zz-test-refusing")
	if rt != nil || !errors.Is(err, errRefused) {
		t.Errorf(`New("zz-test-refusing"): got %v, %v; want nil and an error matching the constructor's`, rt, err)
	}
	if _, err := runtimes.New("zz-no-such-backend"); !errors.Is(err, runtimes.ErrUnknownBackend) {
		t.Errorf(`New("zz-no-such-backend"): got %v; want ErrUnknownBackend`, err)
	}
}

// A job asleep "forever" (Sleep of math.MaxInt64) does not stop the
// timers of other waits on every backend: a 1 ms Sleep on the same P (one
// P, so the same timer shard where a backend shards them) still returns.
func TestForeverSleepLeavesTimersWorking(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, name := range runtimes.Names() {
		if strings.HasPrefix(name, testBackendPrefix) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			rt, err := runtimes.New(name)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			done := make(chan error, 1)
			go func() {
				done <- rt.Run(context.Background(), func(j *kc.Job) error {
					forever, err := j.Launch(func(c *kc.Job) error { return c.Sleep(time.Duration(math.MaxInt64)) })
					if err != nil {
						return err
					}
					defer forever.Cancel(nil)
					if err := j.Sleep(time.Millisecond); err != nil { // the forever sleeper parks meanwhile
						return err
					}
					return j.Sleep(time.Millisecond)
				})
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Error(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Sleep(1ms) next to a forever Sleep has not returned after 10 s")
			}
		})
	}
}
