package kc_test

import (
	"context"
	"testing"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// BenchmarkCoreLaunch measures Launch + run + finish of an empty child on a
// one-goroutine FIFO executor that runs tasks with RunOn (runOnExecutor,
// worker_test.go), as the stealing and vcore workers do: the core's share
// of JobCreate.
func BenchmarkCoreLaunch(b *testing.B) {
	rt := kc.New(newRunOnExecutor(nil))
	defer rt.Close()
	b.ReportAllocs()
	empty := func(*kc.Job) error { return nil }
	_ = rt.Run(context.Background(), func(j *kc.Job) error {
		n, _ := j.Open()
		b.ResetTimer()
		for range b.N {
			n.Launch(empty)
		}
		err := n.AwaitAll(j)
		b.StopTimer()
		return err
	})
}

// BenchmarkCoreAwaitCached measures Await of a finished deferred.
func BenchmarkCoreAwaitCached(b *testing.B) {
	rt := kc.New(newRunOnExecutor(nil))
	defer rt.Close()
	b.ReportAllocs()
	_ = rt.Run(context.Background(), func(j *kc.Job) error {
		d, _ := kc.Async(j, func(*kc.Job) (int, error) { return 1, nil })
		d.Await(j)
		b.ResetTimer()
		s := 0
		for range b.N {
			v, _ := d.Await(j)
			s += v
		}
		b.StopTimer()
		if s != b.N {
			b.Fatal(s)
		}
		return nil
	})
}

// BenchmarkCoreAwaitInline measures Async + Await when the await runs the
// unstarted child inline.
func BenchmarkCoreAwaitInline(b *testing.B) {
	rt := kc.New(newRunOnExecutor(nil))
	defer rt.Close()
	b.ReportAllocs()
	_ = rt.Run(context.Background(), func(j *kc.Job) error {
		b.ResetTimer()
		for range b.N {
			d, _ := kc.Async(j, func(*kc.Job) (int, error) { return 1, nil })
			d.Await(j)
		}
		b.StopTimer()
		return nil
	})
}

// batchExecutor queues tasks on a slice and runs them on the goroutine that
// parks (or every 256 launches, see BenchmarkCoreLaunchBatch): no second
// goroutine, no lock, no wake-up. It is the floor under any executor.
type batchExecutor struct{ q []*kc.Task }

func (e *batchExecutor) Spawn(t *kc.Task) { e.q = append(e.q, t) }
func (e *batchExecutor) run() {
	for len(e.q) > 0 {
		t := e.q[0]
		e.q = e.q[1:]
		t.Run()
	}
}
func (e *batchExecutor) Park(p *kc.Parker) { e.run(); p.Wait() }
func (e *batchExecutor) AfterFunc(d time.Duration, f func()) kc.Timer {
	return time.AfterFunc(d, f)
}
func (e *batchExecutor) Close() error { return nil }

// BenchmarkCoreLaunchBatch measures Launch + run + finish of an empty child
// on one goroutine with nothing else in the way: the core's own cost per
// job (allocation and GC included), which bounds what any backend's
// JobCreate can reach on one core.
func BenchmarkCoreLaunchBatch(b *testing.B) {
	ex := &batchExecutor{}
	rt := kc.New(ex)
	defer rt.Close()
	b.ReportAllocs()
	empty := func(*kc.Job) error { return nil }
	_ = rt.Run(context.Background(), func(j *kc.Job) error {
		n, _ := j.Open()
		b.ResetTimer()
		for i := range b.N {
			n.Launch(empty)
			if i%256 == 255 {
				ex.run()
			}
		}
		err := n.AwaitAll(j)
		b.StopTimer()
		return err
	})
}
