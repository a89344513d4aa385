package results

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kcbench/kcbench/perf"
)

// Known lists the stable workload names of DESIGN.md, in report order:
// perf's, which the benchmarks run. Baselines refer to them, so they never
// change.
var Known = perf.Names()

// PeerPrefix starts the name of every peer backend.
const PeerPrefix = "peer-"

// ReferencePeer is the peer that ratios are taken against by default.
const ReferencePeer = perf.PeerGo

// Peers lists the peers kcbench compares against, in report order: perf's.
var Peers = perf.Peers()

// IsPeer reports whether backend is a peer rather than a kcbench
// runtime.
func IsPeer(backend string) bool {
	return strings.HasPrefix(backend, PeerPrefix)
}

// Floor is the backend of the floor rows (perf.Floor): each workload's
// irreducible work in plain Go, measured in the same run.
const Floor = perf.Floor

// IsReference reports whether backend is a reference that the kcbench
// runtimes are measured against, a peer or the floor, rather than a
// kcbench runtime. References are exempt from the spec targets.
func IsReference(backend string) bool {
	return IsPeer(backend) || backend == Floor
}

// References returns the references that tables give a sec/op ratio
// row for, in report order: the peers, then the floor.
func References() []string { return append(slices.Clone(Peers), Floor) }

// SecPerOp is the tidied unit of the default Go benchmark metric.
const SecPerOp = "sec/op"

// A Target is a spec performance target: the median of Unit for
// Workload must be at most Max on every kcbench backend (references,
// the peers and the floor, are exempt); Stretch is the stretch goal.
type Target struct {
	Workload string
	Unit     string
	Max      float64
	Stretch  float64
}

// Targets are the spec targets (DESIGN.md, "Benchmarks and reports").
var Targets = []Target{
	{Workload: "JobCreate", Unit: SecPerOp, Max: 450e-9, Stretch: 300e-9},
	{Workload: "AwaitCached", Unit: SecPerOp, Max: 150e-9, Stretch: 100e-9},
}

// TargetFor returns the target that applies to ser, if any: a
// non-latency series of a targeted workload and unit on a backend that
// is not a reference (IsReference).
func TargetFor(ser *Series) (Target, bool) {
	if ser.Latency || IsReference(ser.Backend) {
		return Target{}, false
	}
	for _, t := range Targets {
		if t.Workload == ser.Workload && t.Unit == ser.Unit {
			return t, true
		}
	}
	return Target{}, false
}

// Met reports whether a median meets the target.
func (t Target) Met(median float64) bool { return median <= t.Max }

// StretchMet reports whether a median meets the stretch goal.
func (t Target) StretchMet(median float64) bool { return median <= t.Stretch }

// A Query selects series by their ID fields and unit. Empty fields
// match anything except where noted.
type Query struct {
	Workload string
	Backend  string
	N        string
	Unit     string
	// Latency selects latency lines (true) or ordinary ones (false);
	// it always takes part in the match.
	Latency bool
	// AnyN matches any N; otherwise N must equal the series' N
	// exactly, "" matching only series without a size.
	AnyN bool
}

// Match reports whether ser satisfies q.
func (q Query) Match(ser *Series) bool {
	return ser.Latency == q.Latency &&
		(q.Workload == "" || q.Workload == ser.Workload) &&
		(q.Backend == "" || q.Backend == ser.Backend) &&
		(q.AnyN || q.N == ser.N) &&
		(q.Unit == "" || q.Unit == ser.Unit)
}

// Select returns the series matching q, in order. When the matches were
// run at several GOMAXPROCS values, only those at the highest one are
// kept, so that a plot or table never mixes them.
func Select(series []*Series, q Query) []*Series {
	var out []*Series
	best := -1
	for _, ser := range series {
		if !q.Match(ser) {
			continue
		}
		procs, err := strconv.Atoi(ser.Procs)
		if err != nil {
			procs = 0
		}
		switch {
		case procs > best:
			best, out = procs, append(out[:0], ser)
		case procs == best:
			out = append(out, ser)
		}
	}
	return out
}

// Find returns the single series of workload, backend, n and unit
// (latency false), or nil.
func Find(series []*Series, workload, backend, n, unit string) *Series {
	got := Select(series, Query{Workload: workload, Backend: backend, N: n, Unit: unit})
	if len(got) == 0 {
		return nil
	}
	return got[0]
}
