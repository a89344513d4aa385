package kc_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestNestedNurseryClosedWithOuter guards the Close of a nursery that
// holds open nurseries of its own: it plays the part of a body returning,
// so it closes them too, at every depth, whichever way the outer one is
// closed (its parent's body ending, AwaitAll, Close). Each nursery must then
// end Completed once its children have, and nothing may hang.
func TestNestedNurseryClosedWithOuter(t *testing.T) {
	testutil.NoLeak(t)
	ways := map[string]func(j, n1 *kc.Job) error{
		"body end": func(j, n1 *kc.Job) error { return nil },
		"AwaitAll": func(j, n1 *kc.Job) error { return n1.AwaitAll(j) },
		"Close":    func(j, n1 *kc.Job) error { n1.Close(); return n1.Join(j) },
	}
	for _, name := range runtimes.Names() {
		t.Run(name, func(t *testing.T) {
			rt, err := runtimes.New(name)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			for way, closeOuter := range ways {
				var ran atomic.Int32
				var nurseries []*kc.Job
				testutil.Watchdog(t, 10*time.Second, func() {
					err := rt.Run(context.Background(), func(j *kc.Job) error {
						parent := j
						for range 3 { // n1 holds n2, which holds n3
							n, err := parent.Open()
							if err != nil {
								return err
							}
							nurseries = append(nurseries, n)
							parent = n
						}
						for _, n := range nurseries {
							if _, err := n.Launch(func(*kc.Job) error { ran.Add(1); return nil }); err != nil {
								return err
							}
						}
						return closeOuter(j, nurseries[0])
					})
					if err != nil {
						t.Errorf("%s: Run = %v; want nil", way, err)
					}
				})
				for i, n := range nurseries {
					if st := n.State(); st != kc.Completed {
						t.Errorf("%s: nursery n%d is %v; want Completed", way, i+1, st)
					}
				}
				if got := ran.Load(); got != 3 {
					t.Errorf("%s: %d children ran; want 3", way, got)
				}
			}
			checkTotals(t, rt, true)
		})
	}
}

// TestNurseryOpenRacingOuterClose races the Open of a nursery inside a nursery
// with the outer one's Close: the inner one is either refused (ErrClosed, or
// ErrCancelled once the outer one has ended) or closed with the outer one, by
// the outer Close (it is on the outer nursery's child list) or, if its attach
// came too late for that, by its own attach. Either way the outer nursery ends.
func TestNurseryOpenRacingOuterClose(t *testing.T) {
	testutil.NoLeak(t)
	rt := kc.New(goroutine.New())
	defer rt.Close()
	var refused, closed int
	testutil.Watchdog(t, 20*time.Second, func() {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			for i := range 2000 {
				n1, err := j.Open()
				if err != nil {
					return err
				}
				var spinning, gate atomic.Bool
				inner := make(chan error, 1)
				go func() {
					spinning.Store(true)
					testutil.SpinUntil(&gate)
					for k := 0; k < i%32; k++ { // sweep the alignment of the two sides
						alignSink.Add(1)
					}
					_, err := n1.Open()
					inner <- err
				}()
				for !spinning.Load() {
					runtime.Gosched()
				}
				gate.Store(true)
				for k := 0; k < i%64; k++ {
					alignSink.Add(1)
				}
				if err := n1.AwaitAll(j); err != nil {
					return err
				}
				switch err := <-inner; {
				case err == nil:
					closed++
				case errors.Is(err, kc.ErrClosed), errors.Is(err, kc.ErrCancelled): // Closing, or already ended
					refused++
				default:
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Errorf("Run = %v; want nil", err)
		}
	})
	t.Logf("inner nursery refused %d times, closed with the outer one %d times", refused, closed)
	checkTotals(t, rt, true)
}

var alignSink atomic.Int64
