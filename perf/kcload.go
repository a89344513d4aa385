package perf

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Bodies shared by the workloads; package-level so that launching one
// allocates nothing for the body itself.
var (
	emptyJob kc.Func = func(*kc.Job) error { return nil }
	oneJob           = func(*kc.Job) (int, error) { return 1, nil }
	taskJob  kc.Func = func(*kc.Job) error { task(); return nil }
)

// inRuntime runs body as the root job of a fresh runtime of backend and
// closes the runtime. The caller's timer must be stopped when body returns.
func inRuntime(backend string, body kc.Func) error {
	rt, err := runtimes.New(backend)
	if err != nil {
		return err
	}
	err = rt.Run(context.Background(), body)
	if cerr := rt.Close(); err == nil {
		err = cerr
	}
	return err
}

// gate lets a job block, visibly to the runtime (a WaitAll, not a spin or a
// Go channel), until count other jobs have arrived. It is a nursery held
// open by one lease, which the last arrival releases.
type gate struct {
	nur     *kc.Job
	release func()
	left    atomic.Int64
}

func newGate(j *kc.Job, count int) (*gate, error) {
	nur, err := j.Open()
	if err != nil {
		return nil, err
	}
	release, err := nur.Lease()
	if err != nil {
		return nil, err
	}
	g := &gate{nur: nur, release: release}
	g.left.Store(int64(count))
	return g, nil
}

func (g *gate) arrive() {
	if g.left.Add(-1) == 0 {
		g.release()
	}
}

// wait blocks until every arrival, then ends the gate's nursery.
func (g *gate) wait() error {
	err := g.nur.WaitAll(-1)
	g.nur.Close()
	return err
}

// abort opens the gate and cancels nur after a failed setup, so that the
// root job can end.
func (g *gate) abort(nur *kc.Job, err error) error {
	g.release()
	g.nur.Close()
	nur.Cancel(err)
	return err
}

func kcJobCreate(t timer, backend string, _, ops int) error {
	return inRuntime(backend, func(j *kc.Job) error {
		nur, err := j.Open()
		if err != nil {
			return err
		}
		t.ResetTimer()
		for range ops {
			if _, err := nur.Launch(emptyJob); err != nil {
				return err
			}
		}
		err = nur.AwaitAll(j)
		t.StopTimer()
		return err
	})
}

func kcAwaitCached(t timer, backend string, _, ops int) error {
	return inRuntime(backend, func(j *kc.Job) error {
		d, err := kc.Async(j, oneJob)
		if err != nil {
			return err
		}
		if _, err := d.Await(j); err != nil {
			return err
		}
		sum := 0
		t.ResetTimer()
		for range ops {
			v, err := d.Await(j)
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
	})
}

func kcAwaitPending(t timer, backend string, _, ops int) error {
	return inRuntime(backend, func(j *kc.Job) error {
		t.ResetTimer()
		for range ops {
			d, err := kc.Async(j, oneJob)
			if err != nil {
				return err
			}
			if v, err := d.Await(j); err != nil || v != 1 {
				return fmt.Errorf("await: %d, %v", v, err)
			}
		}
		t.StopTimer()
		return nil
	})
}

func kcNestedScopes(t timer, backend string, _, ops int) error {
	chain := make([]kc.Func, NestedDepth+1)
	chain[0] = emptyJob
	for i := 1; i <= NestedDepth; i++ {
		inner := chain[i-1]
		chain[i] = func(s *kc.Job) error { return s.Scope(inner) }
	}
	top := chain[NestedDepth] // top(j) makes NestedDepth nested scopes under j
	return inRuntime(backend, func(j *kc.Job) error {
		t.ResetTimer()
		for range ops {
			if err := top(j); err != nil {
				return err
			}
		}
		t.StopTimer()
		return nil
	})
}

func kcFanOut(t timer, backend string, n, ops int) error {
	fan := func(s *kc.Job) error {
		for range n {
			if _, err := s.Launch(taskJob); err != nil {
				return err
			}
		}
		return nil
	}
	return inRuntime(backend, func(j *kc.Job) error {
		t.ResetTimer()
		for range ops {
			if err := j.Scope(fan); err != nil {
				return err
			}
		}
		t.StopTimer()
		return nil
	})
}
