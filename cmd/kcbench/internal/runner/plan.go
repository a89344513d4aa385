package runner

import (
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kcbench/kcbench/perf"
)

// An Item is one planned benchmark: a workload at one size on one
// backend or peer.
type Item struct {
	Workload perf.Workload
	Backend  string
	N        int // 0 for an unsized workload
}

// Name returns the benchmark name without the "Benchmark" prefix and the
// GOMAXPROCS suffix: <Workload>/backend=<name>[/n=<k>].
func (it Item) Name() string {
	s := it.Workload.Name + "/backend=" + it.Backend
	if it.N > 0 {
		s += "/n=" + strconv.Itoa(it.N)
	}
	return s
}

// Bench returns the benchmark function of the item; onError (may be nil)
// receives the workload's error if the benchmark fails.
func (it Item) Bench(onError func(error)) (func(*testing.B), error) {
	return it.Workload.BenchFunc(it.Backend, it.N, onError)
}

// procsSuffix is the name suffix go test adds: -GOMAXPROCS unless it is 1.
func procsSuffix() string {
	if p := runtime.GOMAXPROCS(0); p != 1 {
		return "-" + strconv.Itoa(p)
	}
	return ""
}

// A Selection says what to plan.
type Selection struct {
	// Backends are the backends and peers to run (nil: every registered
	// backend and every peer). A workload runs on those of them it
	// applies to.
	Backends []string
	// Bench, when not nil, keeps the items whose Name it matches.
	Bench *regexp.Regexp
}

// ErrNothingSelected reports a selection that matches no benchmark.
var ErrNothingSelected = fmt.Errorf("no benchmark matches")

// Plan returns the items of sel in the contract's order: by workload,
// then size, then backend (registered backends first, then peers).
func Plan(sel Selection) ([]Item, error) {
	var items []Item
	for _, w := range perf.Workloads() {
		sizes := w.Sizes
		if sizes == nil {
			sizes = []int{0}
		}
		for _, n := range sizes {
			for _, b := range w.Backends() {
				if sel.Backends != nil && !slices.Contains(sel.Backends, b) {
					continue
				}
				it := Item{Workload: w, Backend: b, N: n}
				if sel.Bench != nil && !sel.Bench.MatchString(it.Name()) {
					continue
				}
				items = append(items, it)
			}
		}
	}
	if len(items) == 0 {
		what := "the selection"
		if sel.Bench != nil {
			what = fmt.Sprintf("-bench %q", sel.Bench)
		}
		if sel.Backends != nil {
			what += " on " + strings.Join(sel.Backends, ",")
		}
		return nil, fmt.Errorf("%w %s", ErrNothingSelected, what)
	}
	return items, nil
}

// LatencyItem is one latency sampler: a workload of perf.LatencyWorkloads
// on one backend.
type LatencyItem struct {
	Workload string
	Backend  string
}

// Name returns the latency line's name without the "Benchmark" prefix and
// GOMAXPROCS suffix: Latency/<Workload>/backend=<name>.
func (l LatencyItem) Name() string { return "Latency/" + l.Workload + "/backend=" + l.Backend }

// LatencyPlan returns a latency sampler for every planned item of a
// latency workload (perf.LatencyWorkloads), in plan order.
func LatencyPlan(items []Item) []LatencyItem {
	var out []LatencyItem
	for _, it := range items {
		if slices.Contains(perf.LatencyWorkloads(), it.Workload.Name) {
			out = append(out, LatencyItem{Workload: it.Workload.Name, Backend: it.Backend})
		}
	}
	return out
}

// KnownBackends returns every name -backends accepts: the registered
// backends, then the peers.
func KnownBackends() []string {
	var out []string
	for _, w := range perf.Workloads() {
		for _, b := range w.Backends() {
			if !slices.Contains(out, b) {
				out = append(out, b)
			}
		}
	}
	return out
}
