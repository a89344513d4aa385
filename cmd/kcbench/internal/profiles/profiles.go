// Package profiles records pprof profiles of one benchmark and computes
// the difference of two CPU profiles: the engine of "kcbench profile".
//
// Profiles are written with runtime/pprof, in the gzipped protocol buffer
// format that "go tool pprof" opens; they are read, scaled and merged with
// github.com/google/pprof/profile.
package profiles

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/runner"
)

// Errors reported by this package; match them with errors.Is.
var (
	// ErrProfiling reports that a profile could not be recorded (for
	// example because a CPU profile is already running).
	ErrProfiling = errors.New("cannot record profile")
	// ErrDiff reports two profiles that cannot be subtracted.
	ErrDiff = errors.New("cannot diff profiles")
)

// Kinds are the profiles Record returns, in order.
var Kinds = []string{"cpu", "heap", "mutex", "block"}

// A Set is the profiles of one benchmark.
type Set struct {
	// Profiles holds the encoded profile of each of Kinds.
	Profiles map[string][]byte
	// CPURun is the measurement of the CPU-profiled run, OtherRun that
	// of the run with heap, mutex and block profiling on.
	CPURun, OtherRun runner.Measurement
	// CPUTimed is how long the benchmark's timer ran during the
	// CPU-profiled run, over every b.N round testing.Benchmark made. The
	// profiles cover the whole run (see Record); CPUTimed over
	// CPURun.Wall is the share of it that the benchmark measures.
	CPUTimed time.Duration
}

// TimedShare returns CPUTimed as a fraction of the CPU-profiled run's
// wall time, in [0, 1]; 0 if the run took no time.
func (s *Set) TimedShare() float64 {
	if s.CPURun.Wall <= 0 {
		return 0
	}
	return min(1, float64(s.CPUTimed)/float64(s.CPURun.Wall))
}

// Record runs bench twice for benchtime (runner.Measure): once under the
// CPU profiler, once with every mutex contention and blocking event
// recorded (as go test -mutexprofile -blockprofile do), after which it
// takes the heap, mutex and block profiles. The heap profile holds both
// what is in use (pprof's default view) and everything allocated since the
// program started (-sample_index=alloc_space), which is the useful view
// for benchmarks whose memory is all freed. Profiling the two apart keeps
// the cost of block and mutex recording out of the CPU profile.
//
// The profiles cover everything the runs did, the benchmark's untimed
// setup (outside b.StartTimer and b.StopTimer) included: runtime/pprof
// cannot pause a CPU profile, and stopping it at every timer stop would
// cost up to a tenth of a second each (its writer polls). Set.TimedShare
// says how much of the CPU-profiled run was timed.
func Record(bench func(*testing.B), benchtime string) (*Set, error) {
	s := &Set{Profiles: map[string][]byte{}}
	var cpu bytes.Buffer
	if err := pprof.StartCPUProfile(&cpu); err != nil {
		return nil, fmt.Errorf("%w: cpu: %w", ErrProfiling, err)
	}
	var timed time.Duration // each round's, summed; rounds run one at a time (runner.Measure)
	m, err := runner.Measure(func(b *testing.B) {
		bench(b)
		timed += b.Elapsed()
	}, benchtime)
	pprof.StopCPUProfile()
	if err != nil {
		return nil, err
	}
	s.CPURun, s.CPUTimed, s.Profiles["cpu"] = m, timed, cpu.Bytes()

	oldMutex := runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(1)
	m, err = runner.Measure(bench, benchtime)
	runtime.SetBlockProfileRate(0)
	runtime.SetMutexProfileFraction(oldMutex)
	if err != nil {
		return nil, err
	}
	s.OtherRun = m
	runtime.GC() // the heap profile is as of the last collection
	for _, kind := range Kinds[1:] {
		var b bytes.Buffer
		if err := pprof.Lookup(kind).WriteTo(&b, 0); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrProfiling, kind, err)
		}
		s.Profiles[kind] = b.Bytes()
	}
	return s, nil
}

// DiffCPU returns the CPU profile a minus b, where b is first scaled to
// a's number of operations: every sample value of b is multiplied by
// -opsA/opsB and the two are merged (profile.Merge), so a function's
// value in the result is how much more CPU time (positive) or less
// (negative) a spent on it than b would have spent on as many ops.
// Both profiles must come from the same program.
func DiffCPU(a, b []byte, opsA, opsB int) (*profile.Profile, error) {
	if opsA < 1 || opsB < 1 {
		return nil, fmt.Errorf("%w: op counts %d and %d must be positive", ErrDiff, opsA, opsB)
	}
	pa, err := profile.ParseData(a)
	if err != nil {
		return nil, fmt.Errorf("%w: first profile: %w", ErrDiff, err)
	}
	pb, err := profile.ParseData(b)
	if err != nil {
		return nil, fmt.Errorf("%w: second profile: %w", ErrDiff, err)
	}
	pb.Scale(-float64(opsA) / float64(opsB))
	diff, err := profile.Merge([]*profile.Profile{pa, pb})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDiff, err)
	}
	return diff, nil
}

// Total returns the sum of the values of sample type index i of p (for a
// CPU profile, index 1 is cpu nanoseconds).
func Total(p *profile.Profile, i int) int64 {
	var t int64
	for _, s := range p.Sample {
		if i < len(s.Value) {
			t += s.Value[i]
		}
	}
	return t
}
