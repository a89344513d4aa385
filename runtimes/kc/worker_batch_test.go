package kc_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestWorkerBatchTreeExact guards batched releases through a tree: a
// nursery of jobs that each launched many children and returned, all run on
// a Worker (children of one parent in a row, then the next parent, whose
// flush may finish the previous parent and through it batch the nursery's
// release). Every body runs once, the nursery's Result is right, and every
// job ends exactly once (Stats exact); with one failing leaf, the failure
// reaches the root, the rest is cancelled, and the counters still add up.
func TestWorkerBatchTreeExact(t *testing.T) {
	testutil.NoLeak(t)
	const parents, kids = 20, 50
	boom := errors.New("boom")
	for _, fail := range []bool{false, true} {
		ex := newRunOnExecutor(nil)
		rt := kc.New(ex)
		var ran atomic.Int64
		var ps [parents]*kc.Job
		var n *kc.Job
		var awaitErr, runErr error
		testutil.Watchdog(t, 20*time.Second, func() {
			runErr = rt.Run(context.Background(), func(root *kc.Job) error {
				n, _ = root.Open()
				for i := range ps {
					ps[i], _ = n.Launch(func(p *kc.Job) error {
						for k := range kids {
							p.Launch(func(*kc.Job) error {
								ran.Add(1)
								if fail && i == parents/2 && k == kids/2 {
									return boom
								}
								return nil
							})
						}
						return nil
					})
				}
				awaitErr = n.AwaitAll(root)
				return nil
			})
		})
		rt.Close()
		s := checkTotals(t, rt, false)
		if want := uint64(2 + parents + parents*kids); s.JobsCreated != want {
			t.Errorf("fail %v: JobsCreated = %d; want %d", fail, s.JobsCreated, want)
		}
		if !fail {
			if awaitErr != nil || runErr != nil || n.State() != kc.Completed || ran.Load() != parents*kids {
				t.Errorf("AwaitAll %v, Run %v, nursery %v, %d bodies ran; want nil, nil, Completed, %d",
					awaitErr, runErr, n.State(), ran.Load(), parents*kids)
			}
			if s.JobsCompleted != s.JobsCreated || s.CancellationsRequested != 0 {
				t.Errorf("Stats %+v; want every job Completed, no cancellation", s)
			}
			continue
		}
		if !errors.Is(awaitErr, boom) || !errors.Is(runErr, boom) || n.State() != kc.Failed || ps[parents/2].State() != kc.Failed {
			t.Errorf("with a failing leaf: AwaitAll %v, Run %v, nursery %v, its parent %v; want boom, boom, Failed, Failed",
				awaitErr, runErr, n.State(), ps[parents/2].State())
		}
		// The leaf, its parent, the nursery and the root failed; each was
		// also moved to Cancelling, once, as was every cancelled job.
		if s.JobsFailed != 4 || s.CancellationsRequested != s.JobsCancelled+s.JobsFailed {
			t.Errorf("Stats %+v; want 4 failed and CancellationsRequested = Cancelled + Failed", s)
		}
	}
}

// TestWorkerInterleavedParents guards the flush on every change of parent:
// children of two nurseries spawned alternately, some listed (they ask for
// Done), some failing in a supervisor, all end once, both nurseries end with
// the right outcome, and WaitAll(-1) on a nursery that is not closed wakes
// once the batched releases are flushed.
func TestWorkerInterleavedParents(t *testing.T) {
	testutil.NoLeak(t)
	ex := newRunOnExecutor(nil)
	rt := kc.New(ex)
	boom := errors.New("boom")
	var a, b *kc.Job
	testutil.Watchdog(t, 20*time.Second, func() {
		err := rt.Run(context.Background(), func(root *kc.Job) error {
			a, _ = root.Open()
			b, _ = root.Open(kc.Supervisor())
			for i := range 400 {
				a.Launch(func(c *kc.Job) error {
					if i%7 == 0 {
						_ = c.Done() // listed: released through the parent's child list
					}
					return nil
				})
				b.Launch(func(*kc.Job) error {
					if i%5 == 0 {
						return boom
					}
					return nil
				})
			}
			if err := a.WaitAll(-1); err != nil {
				t.Errorf("WaitAll(-1) = %v", err)
			}
			if err := a.WaitAll(0); err != nil {
				t.Errorf("WaitAll(0) after WaitAll(-1) = %v; want nil", err)
			}
			if st := a.State(); st != kc.Active {
				t.Errorf("nursery after WaitAll: %v; want Active (WaitAll does not close)", st)
			}
			if err := b.AwaitAll(root); err != nil {
				t.Errorf("supervisor AwaitAll = %v; want nil", err)
			}
			return a.AwaitAll(root)
		})
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	if a.State() != kc.Completed || b.State() != kc.Completed {
		t.Errorf("nurseries %v, %v; want Completed", a.State(), b.State())
	}
	rt.Close()
	s := checkTotals(t, rt, false)
	if s.JobsCreated != 803 || s.JobsFailed != 80 || s.JobsCompleted != 723 {
		t.Errorf("Stats %+v; want 803 created, 80 failed, 723 completed", s)
	}
}

// TestWorkerGoexit guards a body that calls runtime.Goexit under RunOn,
// after siblings whose releases are batched on the same Worker: its job
// fails with ErrGoexit, and the executor's deferred Flush (the only one
// that can drop those releases) lets the parent finish: Completed for a
// supervisor nursery, Failed with ErrGoexit (and the later siblings
// cancelled, never run) otherwise. The counters add up.
func TestWorkerGoexit(t *testing.T) {
	testutil.NoLeak(t)
	for _, supervisor := range []bool{true, false} {
		ex := newRunOnExecutor(nil)
		rt := kc.New(ex)
		var opts []kc.JobOption
		if supervisor {
			opts = append(opts, kc.Supervisor())
		}
		var g, n *kc.Job
		var after []*kc.Job
		var ran atomic.Int32
		var awaitErr error
		testutil.Watchdog(t, 10*time.Second, func() {
			rt.Run(context.Background(), func(root *kc.Job) error {
				n, _ = root.Open(opts...)
				for range 5 {
					n.Launch(func(*kc.Job) error { ran.Add(1); return nil })
				}
				g, _ = n.Launch(func(*kc.Job) error { runtime.Goexit(); return nil })
				for range 5 {
					c, _ := n.Launch(func(*kc.Job) error { ran.Add(1); return nil })
					after = append(after, c)
				}
				awaitErr = n.AwaitAll(root)
				return nil
			})
		})
		if st := g.State(); st != kc.Failed || !errors.Is(g.Result(), kc.ErrGoexit) {
			t.Errorf("supervisor %v: Goexit job %v, %v; want Failed with ErrGoexit", supervisor, st, g.Result())
		}
		if ex.goexits.Load() != 1 {
			t.Errorf("supervisor %v: %d goroutines ended by Goexit; want 1", supervisor, ex.goexits.Load())
		}
		if supervisor {
			if awaitErr != nil || n.State() != kc.Completed || ran.Load() != 10 {
				t.Errorf("supervisor: AwaitAll %v, nursery %v, %d bodies ran; want nil, Completed, 10", awaitErr, n.State(), ran.Load())
			}
		} else {
			if !errors.Is(awaitErr, kc.ErrGoexit) || n.State() != kc.Failed || ran.Load() != 5 {
				t.Errorf("AwaitAll %v, nursery %v, %d bodies ran; want ErrGoexit, Failed, 5", awaitErr, n.State(), ran.Load())
			}
			for i, c := range after {
				if c.State() != kc.Cancelled {
					t.Errorf("sibling %d after the failure: %v; want Cancelled", i, c.State())
				}
			}
		}
		rt.Close()
		if s := checkTotals(t, rt, false); s.JobsCreated != 13 || s.CancellationsRequested != s.JobsCancelled+s.JobsFailed {
			t.Errorf("supervisor %v: Stats %+v; want 13 created, CancellationsRequested = Cancelled + Failed", supervisor, s)
		}
	}
}
