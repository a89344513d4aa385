package ab

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchfmt"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
)

// LatencyPrefix starts the name of every latency row:
// Latency/<Workload>/backend=<b> is the name of the latency lines of
// "kcbench run"'s results, and the unit (p50-ns, ...) says which
// percentile the row is.
const LatencyPrefix = "Latency/"

// A sampler is what one request to every side measures in a round: a
// benchmark, whose row is made before the first round, or a latency
// sampler, whose rows (one per percentile) are made from its first
// answers. Run's goroutine is the only one that touches it.
type sampler struct {
	name    string // the row name: the benchmark's, or LatencyPrefix+latency
	latency string // the latency request's name, "" for a benchmark
	rows    []*RowResult
}

// runLatency takes one latency sample of s on every side, in the
// round's order. Every answer must give the percentiles of the first one
// (the same units, in the same order): the rows are made from that.
func (cfg *Config) runLatency(s *sampler, round int) error {
	n := len(cfg.Sides)
	got := make([]LatencySample, n)
	for _, side := range cfg.Order.sides(round, n) {
		l, err := cfg.Sides[side].Latency(s.latency, cfg.LatencySamples)
		if err != nil {
			return err
		}
		got[side] = l
	}
	if s.rows == nil {
		for _, v := range got[0].Values {
			s.rows = append(s.rows, &RowResult{Name: s.name, Unit: v.Unit, Ns: make([][]float64, n), Calls: make([]float64, n)})
		}
	}
	want := make([]string, len(s.rows))
	for k, r := range s.rows {
		want[k] = r.Unit
	}
	for side, l := range got {
		if units := unitsOf(l.Values); !slices.Equal(units, want) {
			return fmt.Errorf("%w: %s driver: latency of %s in %v, earlier answers in %v", ErrDriver, cfg.Sides[side].Label, s.latency, units, want)
		}
	}
	if round < cfg.Discard {
		return nil
	}
	for side, l := range got {
		for k, v := range l.Values {
			s.rows[k].Ns[side] = append(s.rows[k].Ns[side], v.Value)
		}
	}
	return nil
}

// width is the widest paired half width of s's rows over the sides, at
// the strictest Holm level of a family of that many rows, or +Inf while
// it cannot be estimated.
func (cfg *Config) width(s *sampler, family int) float64 {
	if len(s.rows) == 0 {
		return math.Inf(1)
	}
	w := 0.0
	for _, r := range s.rows {
		for side := 1; side < len(cfg.Sides); side++ {
			e, err := paired.Analyze(r.Pairs(side), 0.95, cfg.Alpha/float64(family))
			if err != nil {
				return math.Inf(1)
			}
			w = max(w, paired.HalfWidth(e))
		}
	}
	return w
}

// unitsOf returns the units of vs, in order.
func unitsOf(vs []benchfmt.Value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Unit
	}
	return out
}
