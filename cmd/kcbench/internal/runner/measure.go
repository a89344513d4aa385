// Package runner runs the perf workloads the way "go test -bench" would,
// from a program: it plans the benchmarks (workload x size x backend),
// runs them in interleaved rounds through testing.Benchmark, samples the
// latency percentiles, and writes everything in the Go benchmark format
// with the file configuration lines the report reads.
//
// Rounds are interleaved: round 1 runs every planned benchmark once, then
// round 2 runs every one again, and so on (A B C A B C ...), so slow drift
// of the machine (thermal, a noisy neighbour) affects every backend alike
// instead of biasing whichever ran last.
//
// A run lasts a benchtime, as with go test: the first round of a
// benchmark ramps up to it as testing.Benchmark does (runs of 1, 100,
// 10000, ... iterations), later rounds run at once the iteration count
// that the previous round says fills it, which halves the wall time.
package runner

import (
	"errors"
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"
)

// Errors reported by this package; match them with errors.Is.
var (
	// ErrBenchtime reports a malformed -benchtime value.
	ErrBenchtime = errors.New("bad benchtime")
	// ErrBenchFailed reports a benchmark that failed (b.Fatal) or ran
	// no iterations.
	ErrBenchFailed = errors.New("benchmark failed")
)

// benchtimeFlag is the testing package's flag that testing.Benchmark
// reads its run length from.
const benchtimeFlag = "test.benchtime"

var benchMu sync.Mutex // serialises benchtime changes and benchmark runs

// initTesting registers the testing flags (testing.Init is idempotent and
// a no-op beyond the first call, also under "go test").
func initTesting() { testing.Init() }

// ParseBenchtime checks a benchtime in the testing package's syntax: a
// duration ("100ms") or an iteration count ("10x").
func ParseBenchtime(s string) error {
	var n int
	if _, err := fmt.Sscanf(s, "%dx", &n); err == nil && fmt.Sprintf("%dx", n) == s {
		if n < 1 {
			return fmt.Errorf("%w %q: the count must be at least 1", ErrBenchtime, s)
		}
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("%w %q: want a positive duration (100ms) or a count (10x)", ErrBenchtime, s)
	}
	return nil
}

// A Measurement is the outcome of one benchmark run.
type Measurement struct {
	N           int                // iterations
	NsPerOp     float64            // unrounded, unlike BenchmarkResult.NsPerOp
	BytesPerOp  float64            // allocated bytes per op (truncated, as go test does)
	AllocsPerOp float64            // allocations per op (truncated, as go test does)
	Extra       map[string]float64 // b.ReportMetric values, by unit
	Wall        time.Duration      // wall time of the whole run, setup included
}

// Measure runs f as testing.Benchmark does, for benchtime (see
// ParseBenchtime), and returns its measurement. A benchmark that fails or
// runs no iteration returns an error matching ErrBenchFailed.
func Measure(f func(*testing.B), benchtime string) (Measurement, error) {
	if err := ParseBenchtime(benchtime); err != nil {
		return Measurement{}, err
	}
	benchMu.Lock()
	defer benchMu.Unlock()
	initTesting()
	old := flag.Lookup(benchtimeFlag).Value.String()
	if err := flag.Set(benchtimeFlag, benchtime); err != nil {
		return Measurement{}, fmt.Errorf("%w %q: %w", ErrBenchtime, benchtime, err)
	}
	defer flag.Set(benchtimeFlag, old) //nolint:errcheck // old was valid
	t0 := time.Now()
	r := testing.Benchmark(f)
	wall := time.Since(t0)
	if r.N <= 0 {
		return Measurement{Wall: wall}, ErrBenchFailed
	}
	m := Measurement{
		N:           r.N,
		NsPerOp:     float64(r.T.Nanoseconds()) / float64(r.N),
		BytesPerOp:  float64(r.AllocedBytesPerOp()), // integers, as go test prints them
		AllocsPerOp: float64(r.AllocsPerOp()),
		Extra:       r.Extra,
		Wall:        wall,
	}
	return m, nil
}
