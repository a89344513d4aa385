package results

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

// LatencyBase is the base name of latency lines (BenchmarkLatency/...).
const LatencyBase = "Latency"

// LatencyUnits are the tidied units of a latency line, in order.
var LatencyUnits = []string{"p50-sec", "p90-sec", "p99-sec", "p99.9-sec"}

// LatencyLabels are the display names of LatencyUnits.
var LatencyLabels = []string{"p50", "p90", "p99", "p99.9"}

// An ID identifies the benchmark a result belongs to.
type ID struct {
	// Workload is the benchmark's base name without "Benchmark" (e.g.
	// "JobCreate"); for a latency line, the workload it measures.
	Workload string
	// Backend is the value of the /backend= key, or "".
	Backend string
	// N is the value of the /n= key, or "".
	N string
	// Procs is the GOMAXPROCS suffix of the name, or "".
	Procs string
	// Latency marks a BenchmarkLatency/<Workload>/... line.
	Latency bool
}

// Identify returns the ID of r.
func Identify(r *benchfmt.Result) ID {
	base, parts := r.Name.Parts()
	id := ID{Workload: string(base)}
	positional := 0
	for _, p := range parts {
		s := string(p)
		if v, ok := strings.CutPrefix(s, "-"); ok {
			id.Procs = v
			continue
		}
		s = strings.TrimPrefix(s, "/")
		key, val, ok := strings.Cut(s, "=")
		switch {
		case ok && key == "backend":
			id.Backend = val
		case ok && key == "n":
			id.N = val
		case !ok && positional == 0 && id.Workload == LatencyBase:
			id.Workload, id.Latency = s, true
		}
		if !ok {
			positional++
		}
	}
	return id
}

// SizeValue returns N as a number, or 0 when it is absent or not a
// number.
func (id ID) SizeValue() float64 {
	v, err := strconv.ParseFloat(id.N, 64)
	if err != nil {
		return 0
	}
	return v
}

// A Series is every value of one unit recorded for one benchmark.
type Series struct {
	ID
	// Name is the full benchmark name without "Benchmark".
	Name string
	// Unit is the tidied unit ("sec/op", "B/op", "p99-sec", ...).
	Unit string
	// Values are the measurements, in file order.
	Values []float64
}

// Series groups the values of s by full benchmark name and tidied unit,
// in the order each pair first appears. Results from different files with the
// same name are merged; use Load on one file to keep them apart.
func (s *Set) Series() []*Series {
	type key struct{ name, unit string }
	index := make(map[key]*Series)
	var out []*Series
	for _, r := range s.Results {
		name := string(r.Name.Full())
		for _, v := range r.Values {
			// benchfmt leaves a zero value in its untidied unit
			// ("0 ns/op" stays ns/op); tidy it like the others.
			val, unit := benchunit.Tidy(v.Value, v.Unit)
			k := key{name, unit}
			ser := index[k]
			if ser == nil {
				ser = &Series{ID: Identify(r), Name: name, Unit: unit}
				index[k] = ser
				out = append(out, ser)
			}
			ser.Values = append(ser.Values, val)
		}
	}
	return out
}

// Summary summarizes ser at the given confidence level (e.g. 0.95)
// under the statistical assumption that the unit metadata of s gives
// its unit (by default the median and its distribution-free confidence
// interval), exactly as benchstat does.
func (s *Set) Summary(ser *Series, confidence float64) benchmath.Summary {
	thresholds := benchmath.DefaultThresholds
	sample := benchmath.NewSample(slices.Clone(ser.Values), &thresholds)
	return s.Units.GetAssumption(ser.Unit).Summary(sample, confidence)
}

// Workloads returns the distinct non-latency workloads of series in the
// order of Known, followed by unknown ones in order of appearance.
func Workloads(series []*Series) []string {
	var names []string
	for _, ser := range series {
		if !ser.Latency && !slices.Contains(names, ser.Workload) {
			names = append(names, ser.Workload)
		}
	}
	slices.SortStableFunc(names, func(a, b string) int {
		return cmp.Compare(knownRank(a), knownRank(b))
	})
	return names
}

// knownRank orders known workloads first, in the order of Known.
func knownRank(w string) int {
	if i := slices.Index(Known, w); i >= 0 {
		return i
	}
	return len(Known)
}

// Backends returns the distinct backends of series in order of
// appearance, kcbench backends first, then peers, then the floor.
func Backends(series []*Series) []string {
	var names []string
	for _, ser := range series {
		if !slices.Contains(names, ser.Backend) {
			names = append(names, ser.Backend)
		}
	}
	slices.SortStableFunc(names, func(a, b string) int {
		return cmp.Compare(peerRank(a), peerRank(b))
	})
	return names
}

// peerRank orders kcbench backends (0) before peers (1) and the floor
// (2).
func peerRank(backend string) int {
	switch {
	case backend == Floor:
		return 2
	case IsPeer(backend):
		return 1
	}
	return 0
}

// Sizes returns the distinct non-empty N values of series, ordered
// numerically.
func Sizes(series []*Series) []string {
	var sizes []string
	for _, ser := range series {
		if ser.N != "" && !slices.Contains(sizes, ser.N) {
			sizes = append(sizes, ser.N)
		}
	}
	slices.SortStableFunc(sizes, func(a, b string) int {
		return cmp.Compare(ID{N: a}.SizeValue(), ID{N: b}.SizeValue())
	})
	return sizes
}
