// Package results reads kcbench results files and identifies the
// workloads, backends and sizes in them.
//
// A results file is in the Go benchmark format
// (https://golang.org/design/14313-benchmark-format), as written by
// "go test -bench" or "kcbench run"; it is parsed with
// golang.org/x/perf/benchfmt, which also tidies units ("ns/op" becomes
// "sec/op", "p50-ns" becomes "p50-sec").
//
// # Names
//
// Every kcbench benchmark is named
//
//	Benchmark<Workload>/backend=<name>[/n=<k>][-<GOMAXPROCS>]
//
// Backends whose name starts with "peer-" are peers (plain go+WaitGroup,
// errgroup, conc, context) rather than kcbench runtimes, and the backend
// "floor" is the floor, each workload's irreducible work in plain Go:
// both are references (IsReference), compared against and exempt from
// the spec targets.
//
// # Latency lines
//
// Latency percentiles are recorded as ordinary benchmark lines with one
// value per percentile:
//
//	BenchmarkLatency/<Workload>/backend=<name> <N> <p50> p50-ns <p90> p90-ns <p99> p99-ns <p999> p99.9-ns
//
// N is the number of sampled operations; the values are nanoseconds per
// operation at that percentile. A -<GOMAXPROCS> suffix is allowed.
// Repeated lines (one per -count run) form a sample per percentile like
// any other benchmark. See ID.Latency and LatencyUnits.
//
// # File configuration
//
// The report reads these file configuration keys when present: goos,
// goarch, cpu, gomaxprocs (else the -N name suffix), go-version (or go),
// commit and kcbench-version.
package results

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Sentinel errors reported by Load. They are wrapped with the file name
// where one is known; match them with errors.Is.
var (
	// ErrNoInput reports that Load was given no file names.
	ErrNoInput = errors.New("no input files")
	// ErrUnreadable reports a file that could not be opened or read.
	ErrUnreadable = errors.New("cannot read results")
	// ErrNoResults reports a file without a single benchmark result.
	ErrNoResults = errors.New("no benchmark results")
	// ErrNonFinite reports a NaN or infinite measurement, which no
	// statistic can use (and which sends benchunit's scaling into an
	// endless loop).
	ErrNonFinite = errors.New("measurement is not a finite number")
)

// A NoResultsError reports a file without a single benchmark result; it
// matches ErrNoResults. Warnings are the syntax errors found while
// reading (as in Set.Warnings), which often say why.
type NoResultsError struct {
	// File is the file's name or label.
	File string
	// Warnings are the *benchfmt.SyntaxError values of every file read.
	Warnings []error
}

// Error returns "<file>: no benchmark results".
func (e *NoResultsError) Error() string { return e.File + ": " + ErrNoResults.Error() }

// Unwrap returns ErrNoResults.
func (e *NoResultsError) Unwrap() error { return ErrNoResults }

// FileKey is the configuration key under which benchfmt.Files records
// the name (or label) of the file a result came from.
const FileKey = ".file"

// A Set is the parsed contents of one or more results files.
type Set struct {
	// Paths are the file names given to Load, in order.
	Paths []string
	// Results are the benchmark results, in file order. Each one is a
	// clone owned by the Set; the ".file" configuration key names the
	// file (or label) it came from.
	Results []*benchfmt.Result
	// Units is the accumulated unit metadata ("Unit x better=higher").
	Units benchfmt.UnitMetadataMap
	// Warnings are the non-fatal syntax errors found while reading, as
	// *benchfmt.SyntaxError values.
	Warnings []error
}

// Load reads the named results files. A name may be "-" for standard
// input, or "label=path" to give the file a label (its ".file" key).
// Every file must hold at least one benchmark result (else the error is a
// *NoResultsError, with the syntax errors found), and every measurement
// must be a finite number.
func Load(paths ...string) (*Set, error) {
	if len(paths) == 0 {
		return nil, ErrNoInput
	}
	set := &Set{Paths: slices.Clone(paths), Units: benchfmt.UnitMetadataMap{}}
	files := benchfmt.Files{Paths: paths, AllowStdin: true, AllowLabels: true}
	counts := make(map[string]int)
	for files.Scan() {
		switch rec := files.Result().(type) {
		case *benchfmt.SyntaxError:
			set.Warnings = append(set.Warnings, rec)
		case *benchfmt.Result:
			if err := checkFinite(rec); err != nil {
				return nil, err
			}
			set.Results = append(set.Results, rec.Clone())
			counts[rec.GetConfig(FileKey)]++
		}
	}
	if err := files.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	for k, v := range files.Units() {
		set.Units[k] = v
	}
	for _, label := range fileLabels(paths) {
		if counts[label] == 0 {
			return nil, &NoResultsError{File: label, Warnings: set.Warnings}
		}
	}
	return set, nil
}

// checkFinite returns an error wrapping ErrNonFinite, with the file and
// line, when a value of r is NaN or infinite.
func checkFinite(r *benchfmt.Result) error {
	for _, v := range r.Values {
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			file, line := r.Pos()
			return fmt.Errorf("%s:%d: %w: %v %s", file, line, ErrNonFinite, v.Value, v.Unit)
		}
	}
	return nil
}

// fileLabels returns the ".file" values benchfmt.Files assigns to paths:
// the label of "label=path", else the path, with "#N" appended to every
// occurrence of a path given more than once.
func fileLabels(paths []string) []string {
	count := make(map[string]int)
	for _, p := range paths {
		if !strings.Contains(p, "=") {
			count[p]++
		}
	}
	seen := make(map[string]int)
	labels := make([]string, len(paths))
	for i, p := range paths {
		label, _, labeled := strings.Cut(p, "=")
		switch {
		case labeled:
			labels[i] = label
		case count[p] > 1:
			labels[i] = fmt.Sprintf("%s#%d", p, seen[p])
			seen[p]++
		default:
			labels[i] = p
		}
	}
	return labels
}

// Config returns the value of the file configuration key in the first
// result that has it, or "".
func (s *Set) Config(key string) string {
	for _, r := range s.Results {
		if v := r.GetConfig(key); v != "" {
			return v
		}
	}
	return ""
}

// Better reports whether higher (+1) or lower (-1) values of unit are
// better. Unit metadata ("Unit x better=higher") wins; units without it
// follow the convention that rates (a unit whose denominator is "s" or
// "sec", such as "B/s" or "ops/s") are better when higher and everything
// else (sec/op, B/op, allocs/op, latency percentiles) when lower.
func (s *Set) Better(unit string) int {
	if b := s.Units.GetBetter(unit); b != 0 {
		return b
	}
	return ConventionalBetter(unit)
}

// ConventionalBetter is Better without unit metadata.
func ConventionalBetter(unit string) int {
	for i := len(unit) - 1; i >= 0; i-- {
		if unit[i] == '/' {
			switch unit[i+1:] {
			case "s", "sec":
				return 1
			}
			break
		}
	}
	return -1
}
