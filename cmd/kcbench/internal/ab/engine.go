package ab

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// ErrConfig reports an invalid Config.
var ErrConfig = errors.New("invalid A/B config")

// MaxWarm is the largest Config.Warm: a warm-up of 100 samples' ops
// before every sample is already more than any use of it, and a larger
// fraction of a large op count would overflow the count sent to the
// drivers.
const MaxWarm = 100

// Order is the order of the sides within the rounds.
type Order int

const (
	// Alternate runs the sides in order in even rounds and in reverse
	// in odd rounds (ABBA ABBA ...), so that neither side is always
	// the first of its pair. With more than two sides the order also
	// rotates by one every two rounds (ABCD DCBA BCDA ADCB ...), so that
	// over 2n rounds every side takes every place in a round equally
	// often: reversal alone would keep the base at the two ends (the
	// first sample after the drivers restart, and the last) and the
	// second side in the middle, which biases their comparison wherever
	// the place in a round matters.
	Alternate Order = iota
	// Fixed runs the sides in the same order every round (AB AB ...).
	Fixed
)

// sides returns the order in which round runs n sides (see Alternate).
func (o Order) sides(round, n int) []int {
	order := make([]int, n)
	start := 0
	if o == Alternate && n > 2 {
		start = round / 2 % n
	}
	for i := range order {
		order[i] = (start + i) % n
	}
	if o == Alternate && round%2 == 1 {
		slices.Reverse(order)
	}
	return order
}

// A Config configures Run.
type Config struct {
	// Rows are the benchmarks, as <Workload>/backend=<b>[/n=<k>].
	Rows []string
	// Latency are the latency samplers, as <Workload>/backend=<b> (a
	// workload of perf.LatencyWorkloads). Each of the first Rounds
	// rounds, after the rows, samples each of them once on every side
	// (LatencySamples single ops, see Driver.Latency); the rounds that
	// Precision or Budget add are the rows' only, as the precision
	// rounds of "kcbench run" leave out its latency lines. Every
	// percentile of the answers is a row of the Result, named
	// LatencyPrefix+<Workload>/backend=<b>, in the answers' unit.
	Latency        []string
	LatencySamples int
	// Sides are the drivers. Side 0 is the base; every other side is
	// paired with it.
	Sides []*Driver
	// Rounds is the number of rounds every row runs (pairs per row and
	// side); at least paired.MinPairs.
	Rounds int
	// SampleTime is the length of one sample. By default the first
	// (discarded) run of a row on side 0 finds the op count that fills
	// it and every later sample of the row, on every side, runs that
	// many ops; with FixedTime every sample runs for SampleTime instead.
	SampleTime time.Duration
	FixedTime  bool
	// Warm, when positive, runs an untimed warm-up of that fraction of
	// a sample's ops before every sample; at most MaxWarm.
	Warm float64
	// Order is the order of the sides in a round.
	Order Order
	// Discard drops the first Discard rounds of every row.
	Discard int
	// Respawn, when positive, restarts every driver process after every
	// Respawn rounds (see Driver.Restart).
	Respawn int
	// Precision, when positive, keeps adding rounds to the rows whose
	// paired interval (paired.HalfWidth, against side 0) is wider than
	// it, until every row is that precise or Budget is spent.
	Precision float64
	// Budget bounds the wall time of the whole run (the first Rounds
	// rounds always run); with Precision 0 the rounds go on until it is
	// spent.
	Budget time.Duration
	// Alpha is the family-wise alpha, for the rows' MDE; 0.05 if 0.
	Alpha float64
	// Progress, if not nil, is called after every round.
	Progress func(Progress)
	// FirstRound, if not nil, is called once, after the first kept
	// round (the first after Discard), with every row as it stands then:
	// one value per side, benchmarks first, then latency rows, as in
	// Result.Rows. A non-nil error stops Run, which returns it: a caller
	// that can tell from the first pairs that the run cannot serve (too
	// few rounds for the rows that vary) need not measure the rest.
	FirstRound func(rows []*RowResult) error
}

// Progress describes the state after a round.
type Progress struct {
	Round      int
	Elapsed    time.Duration
	Converging []string  // the rows still running, by name
	Widths     []float64 // their widest half width (fraction), Inf before it is known
}

// RowResult holds what one row measured.
type RowResult struct {
	Name string
	// Unit is the unit of Ns: ns/op for a benchmark, the percentile's
	// (p50-ns, ...) for a latency row.
	Unit string
	// Ops is the op count of every sample (0 with FixedTime, and for a
	// latency row).
	Ops int
	// Ns are the values of every kept round, per side: Ns[side][round].
	Ns [][]float64
	// Calls is side-wise kcslow calls per op, averaged over the
	// samples (0 outside counting builds).
	Calls []float64
}

// Pairs returns the pairs of side against side 0.
func (r *RowResult) Pairs(side int) []paired.Pair {
	out := make([]paired.Pair, len(r.Ns[0]))
	for i := range out {
		out[i] = paired.Pair{A: r.Ns[0][i], B: r.Ns[side][i]}
	}
	return out
}

// A Result is the outcome of Run.
type Result struct {
	// Rows are the benchmarks' rows, in Config.Rows' order, then the
	// latency rows, by sampler in Config.Latency's order and by
	// percentile in the drivers' order.
	Rows    []*RowResult
	Rounds  int           // rounds run, the most of any row, discarded ones included
	Elapsed time.Duration // wall time of the whole run
}

func (c *Config) check() error {
	switch {
	case len(c.Rows) == 0 && len(c.Latency) == 0:
		return fmt.Errorf("%w: no rows", ErrConfig)
	case len(c.Latency) > 0 && c.LatencySamples < 1:
		return fmt.Errorf("%w: %d latency samples", ErrConfig, c.LatencySamples)
	case len(c.Sides) < 2:
		return fmt.Errorf("%w: %d sides, need 2 or more", ErrConfig, len(c.Sides))
	case c.Rounds-c.Discard < paired.MinPairs || c.Discard < 0:
		return fmt.Errorf("%w: %d rounds with %d discarded leave fewer than %d pairs", ErrConfig, c.Rounds, c.Discard, paired.MinPairs)
	case c.Precision > 0 && c.Budget == 0:
		return fmt.Errorf("%w: a precision needs a budget", ErrConfig)
	case c.SampleTime <= 0 || c.Precision < 0 || c.Budget < 0 || !(c.Warm >= 0 && c.Warm <= MaxWarm):
		return fmt.Errorf("%w: sample time %v, precision %v, budget %v, warm %v", ErrConfig, c.SampleTime, c.Precision, c.Budget, c.Warm)
	}
	return nil
}

// Run measures every row on every side in alternating rounds. It stops
// at the first error, or between two samples when ctx is done (with
// ctx's error).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Alpha == 0 {
		cfg.Alpha = 0.05
	}
	t0 := time.Now()
	res := &Result{}
	var samplers []*sampler
	for _, name := range cfg.Rows {
		r := &RowResult{Name: name, Unit: "ns/op", Ns: make([][]float64, len(cfg.Sides)), Calls: make([]float64, len(cfg.Sides))}
		samplers = append(samplers, &sampler{name: name, rows: []*RowResult{r}})
	}
	for _, name := range cfg.Latency {
		samplers = append(samplers, &sampler{name: LatencyPrefix + name, latency: name})
	}
	order := runOrder(samplers)
	if !cfg.FixedTime {
		for _, i := range order {
			s := samplers[i]
			if s.latency != "" {
				continue
			}
			// The first run ramps up to SampleTime as testing.Benchmark
			// does; it is a warm-up, and its N fixes the op count.
			b, err := cfg.Sides[0].Bench(s.name, cfg.SampleTime.String(), 0)
			if err != nil {
				return nil, err
			}
			s.rows[0].Ops = max(1, int(math.Round(float64(cfg.SampleTime.Nanoseconds())/b.NsPerOp)))
		}
		if cfg.Respawn > 0 {
			// Those runs were side 0's alone: a fresh process for it, so
			// that round 1 does not find it carrying their goroutines
			// and heap while the other sides start clean.
			if err := cfg.Sides[0].Restart(); err != nil {
				return nil, err
			}
		}
	}
	active := make([]bool, len(samplers))
	for i := range active {
		active[i] = true
	}
	for round := 0; ; round++ {
		for _, i := range order {
			s := samplers[i]
			if !active[i] {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("A/B run stopped in round %d: %w", round+1, err)
			}
			var err error
			if s.latency != "" {
				err = cfg.runLatency(s, round)
			} else {
				err = cfg.runRound(s.rows[0], round)
			}
			if err != nil {
				return nil, err
			}
		}
		res.Rounds = round + 1
		if round == cfg.Discard && cfg.FirstRound != nil {
			var rows []*RowResult
			for _, s := range samplers {
				rows = append(rows, s.rows...)
			}
			if err := cfg.FirstRound(rows); err != nil {
				return nil, err
			}
		}
		if cfg.Respawn > 0 && (round+1)%cfg.Respawn == 0 {
			for _, d := range cfg.Sides {
				if err := d.Restart(); err != nil {
					return nil, err
				}
			}
		}
		done := round+1 >= cfg.Rounds
		var prog Progress
		if round+1 >= cfg.Rounds {
			over := cfg.Budget > 0 && time.Since(t0) >= cfg.Budget
			family := 0 // the rows, as the gate judges them
			for _, s := range samplers {
				family += len(s.rows)
			}
			for i, s := range samplers {
				w := cfg.width(s, family)
				switch {
				case over || cfg.Budget == 0 && cfg.Precision == 0 || s.latency != "":
					active[i] = false
				case cfg.Precision > 0:
					active[i] = w > cfg.Precision
				}
				if active[i] {
					prog.Converging = append(prog.Converging, s.name)
					prog.Widths = append(prog.Widths, w)
				}
			}
			done = !slices.Contains(active, true)
		} else {
			for _, s := range samplers {
				prog.Converging = append(prog.Converging, s.name)
				prog.Widths = append(prog.Widths, math.Inf(1))
			}
		}
		prog.Round, prog.Elapsed = round+1, time.Since(t0)
		if cfg.Progress != nil {
			cfg.Progress(prog)
		}
		if done {
			break
		}
	}
	for _, s := range samplers {
		res.Rows = append(res.Rows, s.rows...)
	}
	res.Elapsed = time.Since(t0)
	return res, nil
}

// runOrder returns the order in which a round runs the samplers: by the
// size of their workload (the k of a row named .../n=<k>; 0 for an unsized
// row and for a latency sampler), smallest first, in Config order among
// equals. A driver process keeps what its past benchmarks left behind:
// every goroutine it made stays on the list that each collection walks.
// The drivers restart every round (Respawn 1, the gate's default), so with
// the largest sizes last, CancelFanout's hundred thousand tasks tax no
// other row's samples, and the latency samplers run early, in a process
// that has made few goroutines.
func runOrder(samplers []*sampler) []int {
	size := func(name string) float64 {
		return results.Identify(&benchfmt.Result{Name: benchfmt.Name(name)}).SizeValue()
	}
	order := make([]int, len(samplers))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size(samplers[a].name), size(samplers[b].name)) })
	return order
}

// runRound takes one sample of r on every side.
func (cfg *Config) runRound(r *RowResult, round int) error {
	n := len(cfg.Sides)
	order := cfg.Order.sides(round, n)
	bt := cfg.SampleTime.String()
	warm := 0
	if !cfg.FixedTime {
		bt = strconv.Itoa(r.Ops) + "x"
		warm = int(math.Ceil(cfg.Warm * float64(r.Ops)))
	}
	got := make([]Sample, n)
	for _, side := range order {
		s, err := cfg.Sides[side].Bench(r.Name, bt, warm)
		if err != nil {
			return err
		}
		got[side] = s
	}
	if round < cfg.Discard {
		return nil
	}
	for side, s := range got {
		k := float64(len(r.Ns[side]))
		r.Calls[side] = (r.Calls[side]*k + s.Calls) / (k + 1)
		r.Ns[side] = append(r.Ns[side], s.NsPerOp)
	}
	return nil
}
