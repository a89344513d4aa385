package stealing_test

import (
	"fmt"
	"iter"
	"runtime"
	"sync"
	"testing"
	"time"
)

// parkedCoroutine is a task body parked inside an iter.Pull coroutine: the
// other way a Go backend could park a task without holding its worker (see
// the package doc, "Blocking", for why this backend does not).
// resume switches into it; it runs to the end of its body and switches back.
type parkedCoroutine struct {
	next func() (struct{}, bool)
	stop func()
}

// parkCoroutine starts a coroutine whose body parks at once (yields), as a
// task blocked in Sleep would, and returns it parked.
func parkCoroutine(sink *int) *parkedCoroutine {
	c := &parkedCoroutine{}
	c.next, c.stop = iter.Pull(func(yield func(struct{}) bool) {
		var frame [64]byte // some stack, as a body has
		if !yield(struct{}{}) {
			return
		}
		*sink += int(frame[0]) + 1 // the rest of the body
		yield(struct{}{})
	})
	c.next() // run to the park
	return c
}

// BenchmarkCoroutineResumeFloor measures the floor under the CancelFanout
// target for a backend that parks tasks as pooled coroutines instead of
// goroutines: n parked coroutines are resumed, each runs the rest of its
// body and switches back, shared out over GOMAXPROCS goroutines with no
// queue and no contention between them (each resumes its own slice). The
// core's part of a cancellation (the walk, the wake-ups, the job ends) comes
// on top. Compare ns/child with CancelFanout/backend=peer-context, the same
// floor for tasks that are goroutines, and with CancelFanout/backend=floor,
// which resumes coroutines the same way but times only the busiest worker's
// share on one goroutine:
//
//	go test -run x -bench CoroutineResumeFloor -count 10 ./runtimes/stealing
//	go test -run x -bench 'CancelFanout/backend=(peer-context|floor)' -count 10 ./perf
//
// Resuming a parked task this way costs on the order of 100 ns per child
// before the runtime does any work of its own, and more as n grows, because
// every coroutine's stack and g are cold by the time it is resumed.
func BenchmarkCoroutineResumeFloor(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			workers := runtime.GOMAXPROCS(0)
			n := n / workers * workers       // what the workers resume between them
			sinks := make([]int, workers*16) // one cache line apart
			parked := make([][]*parkedCoroutine, workers)
			b.ReportAllocs()
			b.ResetTimer()
			b.StopTimer()
			for range b.N {
				for w := range parked {
					parked[w] = parked[w][:0]
					for range n / workers {
						parked[w] = append(parked[w], parkCoroutine(&sinks[w*16]))
					}
				}
				var wg sync.WaitGroup
				b.StartTimer()
				for w := range parked {
					wg.Go(func() {
						for _, c := range parked[w] {
							c.next()
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				for _, cs := range parked {
					for _, c := range cs {
						c.stop()
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/child")
		})
	}
}

// BenchmarkGoroutineWakeFloor is the same floor for the design this backend
// has: each parked task is a goroutine blocked on a parker of its own (here a
// WaitGroup, as kc.Parker is), and a cancellation wakes them one by one. It
// times the wake-ups and the wait until every goroutine has returned;
// wake-ns/child is the waker's share alone. Expect several hundred ns per
// child, more than half of it the waker's loop.
func BenchmarkGoroutineWakeFloor(b *testing.B) {
	const n = 1000
	var wakeNs int64
	b.ReportAllocs()
	b.ResetTimer()
	b.StopTimer()
	for range b.N {
		parkers := make([]sync.WaitGroup, n)
		var ready, done sync.WaitGroup
		ready.Add(n)
		for i := range parkers {
			parkers[i].Add(1)
			done.Go(func() { ready.Done(); parkers[i].Wait() })
		}
		ready.Wait()
		b.StartTimer()
		t0 := time.Now()
		for i := range parkers {
			parkers[i].Done()
		}
		wakeNs += time.Since(t0).Nanoseconds()
		done.Wait()
		b.StopTimer()
	}
	b.ReportMetric(float64(wakeNs)/float64(b.N*n), "wake-ns/child")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/child")
}
