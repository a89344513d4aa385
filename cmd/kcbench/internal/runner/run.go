package runner

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/montanaflynn/stats"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"github.com/kcbench/kcbench/perf"
)

// Config configures Run.
type Config struct {
	// Count is the number of rounds (go test's -count); at least 1.
	Count int
	// Benchtime is the length of one benchmark run, in go test's
	// -benchtime syntax ("100ms", "10x").
	Benchtime string
	// LatencySamples is the number of single operations timed per
	// latency line (one line per latency item per round); 0 disables
	// the latency lines.
	LatencySamples int
	// Env supplies the file configuration lines of every result.
	Env Env
	// Progress, when not nil, is told about every run.
	Progress Reporter
	// Precision, when positive, adds rounds after the Count rounds to
	// the benchmarks whose ns/op median has a 95% interval wider than
	// +-Precision (a fraction of the median), until every one is that
	// precise or the wall time of the whole run reaches Budget.
	Precision float64
	Budget    time.Duration
	// Isolate, when not nil, runs the benchmarks and latency samples of
	// each workload and size in a worker process of its own (see
	// Isolation); nil runs everything in this process.
	Isolate *Isolation
}

// ErrConfig reports an invalid Config.
var ErrConfig = errors.New("invalid run config")

// LatencyPercentiles are the percentiles of a latency line, in order,
// with the units package results reads (LatencyUnits, before tidying).
var LatencyPercentiles = []struct {
	Pct  float64
	Unit string
}{{50, "p50-ns"}, {90, "p90-ns"}, {99, "p99-ns"}, {99.9, "p99.9-ns"}}

// An Output holds what Run measured.
type Output struct {
	Items   []Item
	Latency []LatencyItem
	// Results are the benchmark and latency lines, grouped by item in
	// plan order (all rounds of an item together), latency lines last.
	Results []*benchfmt.Result
}

// task is one step of a round: a benchmark or a latency sampler.
type task struct {
	name  string
	bench func() (*benchfmt.Result, error)
}

// Run runs every item cfg.Count times in interleaved rounds, then
// (within each round, after the benchmarks) samples every latency item.
// A benchmark that fails is reported, dropped from the later rounds, and
// its error is part of the joined error Run returns with the results of
// everything that worked.
func Run(items []Item, cfg Config) (*Output, error) {
	if cfg.Count < 1 || cfg.LatencySamples < 0 || cfg.Precision < 0 || cfg.Budget < 0 || (cfg.Precision > 0 && cfg.Budget == 0) {
		return nil, fmt.Errorf("%w: count %d, latency samples %d, precision %v, budget %v (a precision needs a budget)",
			ErrConfig, cfg.Count, cfg.LatencySamples, cfg.Precision, cfg.Budget)
	}
	if cfg.Isolate != nil && cfg.Isolate.Command == nil {
		return nil, fmt.Errorf("%w: an Isolation without a Command", ErrConfig)
	}
	start := time.Now()
	if err := ParseBenchtime(cfg.Benchtime); err != nil {
		return nil, err
	}
	r := &Output{Items: items}
	if cfg.LatencySamples > 0 {
		r.Latency = LatencyPlan(items)
	}
	config := cfg.Env.Config()
	measure, sample := runItem, sampleLatency
	var ws *workers
	if cfg.Isolate != nil {
		ws = newWorkers(cfg.Isolate)
		measure, sample = ws.bench, ws.latency
	}
	var tasks []task
	for _, it := range items {
		bt := cfg.Benchtime
		tasks = append(tasks, task{it.Name(), func() (*benchfmt.Result, error) {
			res, m, err := measure(it, bt, config)
			if err == nil {
				bt = nextBenchtime(cfg.Benchtime, m)
			}
			return res, err
		}})
	}
	for _, l := range r.Latency {
		tasks = append(tasks, task{l.Name(), func() (*benchfmt.Result, error) { return sample(l, cfg.LatencySamples, config) }})
	}
	byTask := make([][]*benchfmt.Result, len(tasks))
	failed := make([]error, len(tasks))
	eta := newETA(len(tasks), cfg.Count)
	runTask := func(i, round, rounds int) {
		t := tasks[i]
		ev := Event{Round: round, Rounds: rounds, Index: eta.done + 1, Total: eta.total, Name: t.name, ETA: eta.remaining()}
		if cfg.Progress != nil {
			cfg.Progress.Start(ev)
		}
		t0 := time.Now()
		res, err := t.bench()
		ev.Took = time.Since(t0)
		eta.record(i, ev.Took)
		if err != nil {
			failed[i] = fmt.Errorf("%s (round %d): %w", t.name, round, err)
		} else {
			byTask[i] = append(byTask[i], res)
		}
		ev.Result, ev.Err, ev.ETA = res, failed[i], eta.remaining()
		if cfg.Progress != nil {
			cfg.Progress.Done(ev)
		}
	}
	for round := 1; round <= cfg.Count; round++ {
		for i := range tasks {
			if failed[i] != nil {
				eta.skip(i)
				continue
			}
			runTask(i, round, cfg.Count)
		}
	}
	if cfg.Precision > 0 {
		// Precision rounds: only the benchmarks (not the latency lines)
		// still wider than asked, until the budget is spent.
		for round := cfg.Count + 1; time.Since(start) < cfg.Budget; round++ {
			var wide []int
			var names []string
			var widths []float64
			for i := range items {
				if w := relWidth(byTask[i]); failed[i] == nil && w > cfg.Precision {
					wide, names, widths = append(wide, i), append(names, tasks[i].name), append(widths, w)
				}
			}
			if c, ok := cfg.Progress.(Converger); ok {
				c.Converging(round, names, widths)
			}
			if len(wide) == 0 {
				break
			}
			eta.extend(wide)
			for _, i := range wide {
				runTask(i, round, 0)
			}
		}
	}
	if cfg.Progress != nil {
		cfg.Progress.Finish()
	}
	for _, rs := range byTask {
		r.Results = append(r.Results, rs...)
	}
	if ws != nil {
		failed = append(failed, ws.close())
	}
	return r, errors.Join(failed...)
}

// relWidth is the half width of the 95% interval of the median ns/op of
// rs (benchmath's distribution-free interval), as a fraction of the
// median; +Inf while it cannot be estimated.
func relWidth(rs []*benchfmt.Result) float64 {
	var ns []float64
	for _, r := range rs {
		if len(r.Values) > 0 && r.Values[0].Unit == "ns/op" {
			ns = append(ns, r.Values[0].Value)
		}
	}
	if len(ns) < 2 {
		return math.Inf(1)
	}
	th := benchmath.DefaultThresholds
	sum := benchmath.AssumeNothing.Summary(benchmath.NewSample(ns, &th), 0.95)
	if !(sum.Center > 0) || math.IsInf(sum.Lo, 0) || math.IsInf(sum.Hi, 0) {
		return math.Inf(1)
	}
	return (sum.Hi - sum.Lo) / 2 / sum.Center
}

// runItem measures one item once.
func runItem(it Item, benchtime string, config []benchfmt.Config) (*benchfmt.Result, Measurement, error) {
	var benchErr error // testing.Benchmark discards the failure message
	f, err := it.Bench(func(err error) { benchErr = err })
	if err != nil {
		return nil, Measurement{}, err
	}
	m, err := Measure(f, benchtime)
	if err != nil {
		if benchErr != nil {
			err = fmt.Errorf("%w: %w", err, benchErr)
		}
		return nil, m, err
	}
	res := newResult(it.Name(), m.N, config)
	res.Values = append(res.Values,
		benchfmt.Value{Value: round(m.NsPerOp), Unit: "ns/op"},
		benchfmt.Value{Value: m.BytesPerOp, Unit: "B/op"},
		benchfmt.Value{Value: m.AllocsPerOp, Unit: "allocs/op"})
	for _, unit := range sortedKeys(m.Extra) {
		res.Values = append(res.Values, benchfmt.Value{Value: round(m.Extra[unit]), Unit: unit})
	}
	return res, m, nil
}

// nextBenchtime returns the benchtime of an item's next round: for a
// duration, the iteration count ("Nx") that the last measurement says
// fills it, so that later rounds skip testing.Benchmark's ramp-up (a
// series of runs growing towards the duration, which more than doubles
// the wall time of a run); a count stays as it is. This is how the
// testing package predicts N, done once per item instead of once per run.
func nextBenchtime(benchtime string, last Measurement) string {
	d, err := time.ParseDuration(benchtime)
	if err != nil || last.NsPerOp <= 0 {
		return benchtime
	}
	n := math.Ceil(float64(d.Nanoseconds()) / last.NsPerOp)
	return strconv.Itoa(int(min(max(n, 1), 1e9))) + "x"
}

// sampleLatency times samples single ops and returns a latency line.
func sampleLatency(l LatencyItem, samples int, config []benchfmt.Config) (*benchfmt.Result, error) {
	d, err := perf.SampleLatency(l.Workload, l.Backend, samples)
	if err != nil {
		return nil, err
	}
	ns := make(stats.Float64Data, len(d))
	for i, v := range d {
		ns[i] = float64(v.Nanoseconds())
	}
	res := newResult(l.Name(), len(d), config)
	for _, p := range LatencyPercentiles {
		v, err := stats.PercentileNearestRank(ns, p.Pct)
		if err != nil {
			return nil, fmt.Errorf("%s: percentile %v: %w", l.Name(), p.Pct, err)
		}
		res.Values = append(res.Values, benchfmt.Value{Value: v, Unit: p.Unit})
	}
	return res, nil
}

// newResult returns a result named Benchmark<name>-<GOMAXPROCS>.
func newResult(name string, iters int, config []benchfmt.Config) *benchfmt.Result {
	return &benchfmt.Result{Config: slices.Clone(config), Name: benchfmt.Name(name + procsSuffix()), Iters: iters}
}

// round keeps two decimals, as go test prints small ns/op values.
func round(v float64) float64 {
	const scale = 100
	return math.Round(v*scale) / scale
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
