package perf

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
	"golang.org/x/sync/errgroup"
)

func kcCancelFanout(t timer, backend string, n, ops int) error {
	return inRuntime(backend, func(j *kc.Job) error {
		t.StopTimer()
		t.ResetTimer()
		var g *gate
		sleeper := func(c *kc.Job) error {
			g.arrive()
			return c.Sleep(time.Hour)
		}
		for range ops {
			var err error
			if g, err = newGate(j, n); err != nil {
				return err
			}
			nur, err := j.Open()
			if err != nil {
				return g.abort(j, err)
			}
			for range n {
				if _, err := nur.Launch(sleeper); err != nil {
					return g.abort(nur, err)
				}
			}
			if err := g.wait(); err != nil {
				return err
			}
			t.StartTimer()
			nur.Cancel(nil)
			err = nur.AwaitAll(j)
			t.StopTimer()
			if !errors.Is(err, kc.ErrCancelled) {
				return fmt.Errorf("cancelled scope ended with %v", err)
			}
		}
		t.ReportMetric(float64(t.Elapsed().Nanoseconds())/float64(ops*n), "ns/child")
		return nil
	})
}

// cancelFanout runs the CancelFanout loop of a peer: setup (untimed) starts
// n goroutines that call ready.Done and block; cancel is then timed with
// the wait until every goroutine has returned.
func cancelFanout(t timer, n, ops int, setup func(ready *sync.WaitGroup) (cancel func() error)) error {
	t.StopTimer()
	t.ResetTimer()
	for range ops {
		var ready sync.WaitGroup
		ready.Add(n)
		cancel := setup(&ready)
		ready.Wait()
		t.StartTimer()
		err := cancel()
		t.StopTimer()
		if err != nil {
			return err
		}
	}
	t.ReportMetric(float64(t.Elapsed().Nanoseconds())/float64(ops*n), "ns/child")
	return nil
}

// sleepCtx is Go's cancellable sleep, the peers' counterpart of the kc
// children's j.Sleep(time.Hour): a timer armed before the wait and stopped
// after it, so that a peer pays, as kc does, for arming and disarming what
// would end the sleep had it not been cancelled.
func sleepCtx(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

func ctxCancelFanout(t timer, n, ops int) error {
	return cancelFanout(t, n, ops, func(ready *sync.WaitGroup) func() error {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() { ready.Done(); sleepCtx(ctx, time.Hour) })
		}
		return func() error { cancel(); wg.Wait(); return nil }
	})
}

func egCancelFanout(t timer, n, ops int) error {
	return cancelFanout(t, n, ops, func(ready *sync.WaitGroup) func() error {
		parent, cancel := context.WithCancel(context.Background())
		g, ctx := errgroup.WithContext(parent)
		for range n {
			g.Go(func() error { ready.Done(); return sleepCtx(ctx, time.Hour) })
		}
		return func() error {
			cancel()
			if err := g.Wait(); !errors.Is(err, context.Canceled) {
				return fmt.Errorf("cancelled group ended with %v", err)
			}
			return nil
		}
	})
}
