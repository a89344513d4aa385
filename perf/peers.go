package perf

import (
	"context"
	"fmt"
	"sync"

	"github.com/sourcegraph/conc"
	"golang.org/x/sync/errgroup"
)

// Peer bodies, package-level so that passing one allocates nothing.
var (
	emptyFunc = func() {}
	emptyErr  = func() error { return nil }
	taskErr   = func() error { task(); return nil }
)

// future is the idiomatic Go promise: a value published by closing a channel.
type future struct {
	done chan struct{}
	v    int
	err  error
}

func (f *future) await() (int, error) {
	<-f.done
	return f.v, f.err
}

// seqPeer makes a peer workload of ops sequential calls of op.
func seqPeer(op func() error) peerRun {
	return func(t timer, _, ops int) error {
		t.ResetTimer()
		for range ops {
			if err := op(); err != nil {
				return err
			}
		}
		t.StopTimer()
		return nil
	}
}

func goJobCreate(t timer, _, ops int) error {
	var wg sync.WaitGroup
	t.ResetTimer()
	for range ops {
		wg.Go(emptyFunc)
	}
	wg.Wait()
	t.StopTimer()
	return nil
}

func egJobCreate(t timer, _, ops int) error {
	g, _ := errgroup.WithContext(context.Background())
	t.ResetTimer()
	for range ops {
		g.Go(emptyErr)
	}
	err := g.Wait()
	t.StopTimer()
	return err
}

func concJobCreate(t timer, _, ops int) error {
	var wg conc.WaitGroup
	t.ResetTimer()
	for range ops {
		wg.Go(emptyFunc)
	}
	wg.Wait()
	t.StopTimer()
	return nil
}

// ctxJobCreate: a child job is a cancellable node under its parent plus a
// task; here a context.WithCancel child of a cancellable parent plus a
// goroutine that detaches it (cancel) when it ends.
func ctxJobCreate(t timer, _, ops int) error {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	t.ResetTimer()
	for range ops {
		_, done := context.WithCancel(parent)
		wg.Go(done)
	}
	wg.Wait()
	t.StopTimer()
	return nil
}

func goAwaitCached(t timer, _, ops int) error {
	f := &future{done: make(chan struct{})}
	go func() { f.v = 1; close(f.done) }()
	<-f.done // cached: complete before the timer starts
	sum := 0
	t.ResetTimer()
	for range ops {
		v, err := f.await()
		if err != nil {
			return err
		}
		sum += v
	}
	t.StopTimer()
	if sum != ops {
		return fmt.Errorf("awaits summed to %d, want %d", sum, ops)
	}
	return nil
}

func egAwaitCached(t timer, _, ops int) error {
	var g errgroup.Group
	g.Go(emptyErr)
	if err := g.Wait(); err != nil {
		return err
	}
	t.ResetTimer()
	for range ops {
		if err := g.Wait(); err != nil {
			return err
		}
	}
	t.StopTimer()
	return nil
}

// The AwaitPending ops; SampleLatency times them one by one.

func goAsyncAwait() error {
	f := &future{done: make(chan struct{})}
	go func() { f.v = 1; close(f.done) }()
	if v, err := f.await(); err != nil || v != 1 {
		return fmt.Errorf("await: %d, %v", v, err)
	}
	return nil
}

func egAsyncAwait() error {
	var g errgroup.Group
	v := 0
	g.Go(func() error { v = 1; return nil })
	if err := g.Wait(); err != nil || v != 1 {
		return fmt.Errorf("await: %d, %v", v, err)
	}
	return nil
}

func concAsyncAwait() error {
	var wg conc.WaitGroup
	v := 0
	wg.Go(func() { v = 1 })
	if wg.Wait(); v != 1 {
		return fmt.Errorf("await: %d", v)
	}
	return nil
}

func egNest(ctx context.Context, depth int) error {
	if depth == 0 {
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	err := egNest(gctx, depth-1) // a scope runs its body on the caller
	if werr := g.Wait(); err == nil {
		err = werr
	}
	return err
}

func ctxNest(ctx context.Context, depth int) error {
	if depth == 0 {
		return nil
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	return ctxNest(cctx, depth-1)
}

// nested runs ops chains of NestedDepth scopes under a cancellable root.
func nested(nest func(context.Context, int) error) peerRun {
	return func(t timer, _, ops int) error {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		t.ResetTimer()
		for range ops {
			if err := nest(ctx, NestedDepth); err != nil {
				return err
			}
		}
		t.StopTimer()
		return nil
	}
}

var (
	egNestedScopes  = nested(egNest)
	ctxNestedScopes = nested(ctxNest)
)

// fanOut runs ops rounds of op(n), the peer's FanOut round.
func fanOut(op func(n int) error) peerRun {
	return func(t timer, n, ops int) error {
		t.ResetTimer()
		for range ops {
			if err := op(n); err != nil {
				return err
			}
		}
		t.StopTimer()
		return nil
	}
}

var (
	goFanOut = fanOut(func(n int) error {
		var wg sync.WaitGroup
		for range n {
			wg.Go(task)
		}
		wg.Wait()
		return nil
	})
	egFanOut = fanOut(func(n int) error {
		g, _ := errgroup.WithContext(context.Background())
		for range n {
			g.Go(taskErr)
		}
		return g.Wait()
	})
	concFanOut = fanOut(func(n int) error {
		var wg conc.WaitGroup
		for range n {
			wg.Go(task)
		}
		wg.Wait()
		return nil
	})
)
