package perf

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
	"github.com/sourcegraph/conc"
	"golang.org/x/sync/errgroup"
)

// LatencyWorkloads returns the workloads SampleLatency can sample.
func LatencyWorkloads() []string { return []string{"JobCreate", "AwaitPending"} }

// latencyPeers are the single-op versions of the peers, by workload: each
// call returns a fresh op (with whatever long-lived state it needs), to be
// called at most ops times, and a function that releases that state.
var latencyPeers = map[string]map[string]func(ops int) (op func() error, done func()){
	"JobCreate": {
		PeerGo: func(int) (func() error, func()) {
			var wg sync.WaitGroup
			return func() error { wg.Go(emptyFunc); wg.Wait(); return nil }, func() {}
		},
		PeerErrgroup: func(int) (func() error, func()) {
			var g errgroup.Group
			return func() error { g.Go(emptyErr); return g.Wait() }, func() {}
		},
		PeerConc: func(int) (func() error, func()) {
			var wg conc.WaitGroup
			return func() error { wg.Go(emptyFunc); wg.Wait(); return nil }, func() {}
		},
		PeerContext: func(int) (func() error, func()) {
			parent, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			return func() error {
				_, done := context.WithCancel(parent)
				wg.Go(done)
				wg.Wait()
				return nil
			}, cancel
		},
		Floor: func(ops int) (func() error, func()) {
			s := newFloorState()
			s.reserve(ops)
			return func() error { s.launch(floorEmpty); return nil }, func() {}
		},
	},
	"AwaitPending": {
		PeerGo:       func(int) (func() error, func()) { return goAsyncAwait, func() {} },
		PeerErrgroup: func(int) (func() error, func()) { return egAsyncAwait, func() {} },
		PeerConc:     func(int) (func() error, func()) { return concAsyncAwait, func() {} },
		Floor: func(ops int) (func() error, func()) {
			s := newFloorState()
			s.reserve(ops)
			return s.awaitPending, func() {}
		},
	},
}

// kcLatencyOp returns the single op of workload inside the root job j.
func kcLatencyOp(workload string, j *kc.Job) (func() error, error) {
	if workload == "AwaitPending" {
		return func() error {
			d, err := kc.Async(j, oneJob)
			if err != nil {
				return err
			}
			_, err = d.Await(j)
			return err
		}, nil
	}
	// JobCreate: launch into a nursery, so that the child is scheduled by
	// the executor rather than run inline by the Join.
	nur, err := j.Open()
	if err != nil {
		return nil, err
	}
	return func() error {
		c, err := nur.Launch(emptyJob)
		if err != nil {
			return err
		}
		return c.Join(j)
	}, nil
}

// SampleLatency times samples single operations of workload (JobCreate or
// AwaitPending) on backend, one after the other, each with a time.Now
// delta, after an untimed warm-up of samples/10+100 ops in the same warm
// runtime (or peer state) and a garbage collection. One JobCreate op is
// Launch of an empty child into a long-lived nursery plus Join of that
// child (peers: WaitGroup.Go or
// errgroup/conc Go on a long-lived group, then Wait; the floor: one op of
// the JobCreate floor, its job records carved before the timing starts, see
// floorState.reserve); one AwaitPending op is exactly one op of the
// AwaitPending workload. Each duration includes the cost of reading the
// clock twice (the floor's p50 is mostly that). The durations come back
// in the order they were measured; the caller computes percentiles.
//
// Unknown workloads (and those without a sampler) return an error matching
// ErrUnknownWorkload, backends that do not apply one matching
// ErrUnknownBackend, and samples < 1 one matching ErrBadArgument.
func SampleLatency(workload, backend string, samples int) ([]time.Duration, error) {
	peers, ok := latencyPeers[workload]
	if !ok {
		return nil, &NameError{Kind: KindWorkload, Name: workload, What: "latency", Known: LatencyWorkloads()}
	}
	w, err := Lookup(workload)
	if err != nil {
		return nil, err
	}
	if _, err := w.bind(backend, 0); err != nil {
		return nil, err
	}
	if samples < 1 {
		return nil, &ArgError{Workload: workload, Arg: "samples", Value: samples, Why: "must be at least 1"}
	}
	out := make([]time.Duration, samples)
	warm := samples/10 + 100
	if mk, ok := peers[backend]; ok {
		op, done := mk(warm + samples)
		err = sample(op, warm, out)
		done()
	} else {
		err = inRuntime(backend, func(j *kc.Job) error {
			op, err := kcLatencyOp(workload, j)
			if err != nil {
				return err
			}
			return sample(op, warm, out)
		})
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// sample runs op warm times, then collects garbage, then times op once
// per element of out. The collection makes every series start from the
// same heap: without it the timed ops allocate from memory the scavenger
// has returned to the OS after the throughput benchmarks, and about 1% of
// them take a page fault, which sets p99 for whichever backend happens to
// be sampled while the heap is in that state.
func sample(op func() error, warm int, out []time.Duration) error {
	for range warm {
		if err := op(); err != nil {
			return err
		}
	}
	runtime.GC()
	for i := range out {
		t0 := time.Now()
		err := op()
		out[i] = time.Since(t0)
		if err != nil {
			return err
		}
	}
	return nil
}
