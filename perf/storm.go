package perf

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// storm is the state of one WaitersStorm run; its bodies are bound once so
// that an op allocates only what the runtime does.
type storm struct {
	g       *gate
	d       *kc.Deferred[int]
	release func() // the lease that keeps d from completing
	bad     atomic.Int64
}

// produce is d's body: it holds d open with a lease on itself, so that d
// stays pending without blocking a worker, and completes it when released.
func (s *storm) produce(dj *kc.Job) (int, error) {
	defer s.g.arrive()
	release, err := dj.Lease()
	if err != nil {
		return 0, err
	}
	s.release = release
	return 1, nil
}

func (s *storm) await(c *kc.Job) error {
	s.g.arrive()
	if v, err := s.d.Await(c); err != nil || v != 1 {
		s.bad.Add(1)
	}
	return nil
}

func kcWaitersStorm(t timer, backend string, n, ops int) error {
	rt, err := runtimes.New(backend)
	if err != nil {
		return err
	}
	s := new(storm)
	produce, await := s.produce, s.await
	op := func(j *kc.Job) error {
		var err error
		if s.g, err = newGate(j, n+1); err != nil {
			return err
		}
		nur, err := j.Open()
		if err != nil {
			return s.g.abort(j, err)
		}
		s.release = func() {}
		if s.d, err = kc.Async(nur, produce); err != nil {
			return s.g.abort(nur, err)
		}
		for i := range n {
			if _, err = nur.Launch(await); err != nil {
				for range n - i {
					s.g.arrive() // stand in for the awaiters that never started
				}
				break
			}
		}
		// Every awaiter has started (the peer's readiness rule: neither
		// side waits for its awaiters to park, which Go cannot observe).
		if werr := s.g.wait(); err == nil {
			err = werr
		}
		s.release() // completes d: the storm
		if err != nil {
			nur.Cancel(err)
			return err
		}
		return nur.AwaitAll(j)
	}
	err = rt.Run(context.Background(), func(j *kc.Job) error {
		if err := op(j); err != nil { // warm-up: the Run caller has registered its wait by now
			return err
		}
		t.ResetTimer()
		for range ops {
			if err := op(j); err != nil {
				return err
			}
		}
		t.StopTimer()
		return nil
	})
	if cerr := rt.Close(); err == nil {
		err = cerr
	}
	if err == nil && s.bad.Load() != 0 {
		err = fmt.Errorf("%d awaits returned a wrong value or an error", s.bad.Load())
	}
	return err
}

// goWaitersStorm: a goroutine produces a future; n goroutines await it.
// The future is completed once all n + 1 have started; an awaiter that has
// not parked on the channel by then takes the fast path, which can only
// flatter the peer.
func goWaitersStorm(t timer, n, ops int) error {
	var bad atomic.Int64
	t.ResetTimer()
	for range ops {
		f := &future{done: make(chan struct{})}
		var ready, wg sync.WaitGroup
		ready.Add(n + 1)
		go func() { f.v = 1; ready.Done() }()
		for range n {
			wg.Go(func() {
				ready.Done()
				if v, err := f.await(); err != nil || v != 1 {
					bad.Add(1)
				}
			})
		}
		ready.Wait()
		close(f.done)
		wg.Wait()
	}
	t.StopTimer()
	if bad.Load() != 0 {
		return fmt.Errorf("%d awaits returned a wrong value or an error", bad.Load())
	}
	return nil
}
