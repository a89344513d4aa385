package stealing

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// A chain of 4000 tasks on one worker, each blocked on a Go channel until
// the one after it has run, all blocked at once: the monitor must grant
// as many temporary workers, and it doubles its grants while stalled ticks
// follow each other, so the chain needs about 2 log2(4000) stalled ticks
// (the package doc: thousands of blocked tasks get their goroutines in
// milliseconds). A monitor that grants one worker per stuck queue per tick
// needs a stalled tick per task. The test counts the stalled ticks, not
// the time, so a slow machine does not fail it: at most n/8.
func TestBlockedChainGrantsDouble(t *testing.T) {
	testutil.NoLeak(t)
	const n = 4000
	var stalled atomic.Int32
	testHookStalled = func(int32) { stalled.Add(1) }
	defer func() { testHookStalled = nil }()
	e, err := New(Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(e)
	testutil.Watchdog(t, 60*time.Second, func() {
		done := make([]chan struct{}, n) // task i closes done[i]
		for i := range done {
			done[i] = make(chan struct{})
		}
		start := time.Now()
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			for i := range n {
				if _, err := j.Launch(func(*kc.Job) error {
					if i < n-1 {
						<-done[i+1] // invisible to the runtime
					}
					close(done[i])
					return nil
				}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		t.Logf("%d stalled ticks, %v", stalled.Load(), time.Since(start))
	})
	if err := rt.Close(); err != nil {
		t.Error(err)
	}
	if got := stalled.Load(); got > n/8 {
		t.Errorf("a chain of %d tasks blocked on Go channels took %d stalled monitor ticks; want at most %d (the grants double while stalls last)", n, got, n/8)
	}
}
