package perf_test

import (
	"fmt"
	"log"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/kcbench/kcbench/perf"
	"github.com/montanaflynn/stats"
)

// Each benchmark runs its workload on every registered backend and on every
// peer that has a fair equivalent, as Benchmark<Workload>/backend=<name>,
// with /n=<k> below that for sized workloads, so that
// `benchstat -col /backend` puts backends and peers side by side.

func BenchmarkJobCreate(b *testing.B)    { benchWorkload(b, "JobCreate") }
func BenchmarkAwaitCached(b *testing.B)  { benchWorkload(b, "AwaitCached") }
func BenchmarkAwaitPending(b *testing.B) { benchWorkload(b, "AwaitPending") }
func BenchmarkCancelFanout(b *testing.B) { benchWorkload(b, "CancelFanout") }
func BenchmarkWaitersStorm(b *testing.B) { benchWorkload(b, "WaitersStorm") }
func BenchmarkNestedScopes(b *testing.B) { benchWorkload(b, "NestedScopes") }
func BenchmarkFanOut(b *testing.B)       { benchWorkload(b, "FanOut") }
func BenchmarkChanPingPong(b *testing.B) { benchWorkload(b, "ChanPingPong") }
func BenchmarkChanBuffered(b *testing.B) { benchWorkload(b, "ChanBuffered") }
func BenchmarkSelect(b *testing.B)       { benchWorkload(b, "Select") }
func BenchmarkSleepWake(b *testing.B)    { benchWorkload(b, "SleepWake") }

func benchWorkload(b *testing.B, name string) {
	b.ReportAllocs()
	w, err := perf.Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	for _, backend := range w.Backends() {
		b.Run("backend="+backend, func(b *testing.B) {
			b.ReportAllocs()
			if w.Sizes == nil {
				runBench(b, w, backend, 0)
				return
			}
			for _, n := range w.Sizes {
				b.Run("n="+strconv.Itoa(n), func(b *testing.B) { runBench(b, w, backend, n) })
			}
		})
	}
}

func runBench(b *testing.B, w perf.Workload, backend string, n int) {
	f, err := w.Bench(backend, n)
	if err != nil {
		b.Fatal(err)
	}
	f(b) // calls b.ReportAllocs
}

// A program such as `kcbench run` runs the same benchmarks without go test,
// through testing.Benchmark, and names them as go test would.
func Example() {
	for _, w := range perf.Workloads() {
		sizes := w.Sizes
		if sizes == nil {
			sizes = []int{0} // unsized
		}
		for _, backend := range w.Backends() {
			for _, n := range sizes {
				f, err := w.Bench(backend, n)
				if err != nil {
					log.Fatal(err)
				}
				name := "Benchmark" + w.Name + "/backend=" + backend
				if n > 0 {
					name += "/n=" + strconv.Itoa(n)
				}
				r := testing.Benchmark(f)
				fmt.Printf("%s-%d\t%s\t%s\n", name, runtime.GOMAXPROCS(0), r.String(), r.MemString())
			}
		}
	}
}

// Latency percentiles come from single timed operations, by the
// nearest-rank rule, as kcbench run computes them.
func ExampleSampleLatency() {
	d, err := perf.SampleLatency("JobCreate", "goroutine", 100000)
	if err != nil {
		log.Fatal(err)
	}
	ns := make(stats.Float64Data, len(d))
	for i, v := range d {
		ns[i] = float64(v.Nanoseconds())
	}
	for _, pct := range []float64{50, 90, 99, 99.9} {
		v, err := stats.PercentileNearestRank(ns, pct)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("p%v %v\n", pct, time.Duration(v))
	}
}

// The regression gate is checked against a known slowdown: peer-go's
// JobCreate as it is (A) and with 10% of its cost added per op (B).
func ExampleSlowedBench() {
	a, err := perf.SlowedBench("JobCreate", 0)
	if err != nil {
		log.Fatal(err)
	}
	b, err := perf.SlowedBench("JobCreate", 0.10)
	if err != nil {
		log.Fatal(err)
	}
	for range 10 {
		fmt.Println(testing.Benchmark(a).NsPerOp(), testing.Benchmark(b).NsPerOp())
	}
}
