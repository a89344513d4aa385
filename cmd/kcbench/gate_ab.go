package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/ab"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/cpuload"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/gate"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/runner"
)

// abGate is what "kcbench gate -base" was asked to gate.
type abGate struct {
	ref             string // the base git ref
	bench, backends string // -bench and -backends, as for run
	latency         int    // -latency samples (0: no latency rows)
	// filter keeps the rows it matches by name and unit (-filter, whose
	// text is filterQuery).
	filter      *benchproc.Filter
	filterQuery string
}

// runGateAB implements "kcbench gate -base ref".
func runGateAB(stdout, stderr io.Writer, g abGate, f *abFlags, opts gate.Options) error {
	ref := g.ref
	cfg, env, err := f.config()
	if err != nil {
		return err
	}
	if cfg.Rows, cfg.Latency, err = g.plan(); err != nil {
		return err
	}
	cfg.LatencySamples = g.latency
	cfg.Alpha = opts.Alpha
	// An interrupt stops the measuring between two samples, so that the
	// worktree, the drivers and the temporary files are cleaned up.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	mod, err := ab.ModuleRoot(".")
	if err != nil {
		return badInput(fmt.Errorf("-base: run kcbench inside the module to gate: %w", err))
	}
	wt, err := ab.AddWorktree(ctx, mod, ref)
	if err != nil {
		return badInput(fmt.Errorf("-base: %w", err))
	}
	defer wt.Remove()
	baseLabel := fmt.Sprintf("%s (%.12s)", ref, wt.Commit)
	warnWorkloadsChanged(ctx, stderr, wt, mod, baseLabel)
	dir, cleanup, err := tempDir()
	if err != nil {
		return err
	}
	defer cleanup()
	paths := []string{filepath.Join(dir, "base"), filepath.Join(dir, "head")}
	fmt.Fprintf(stderr, "building the drivers: %s and the working tree\n", baseLabel)
	if err := ab.Build(ctx, ab.BuildSpec{Dir: wt.ModuleDir, Label: "base " + baseLabel}, paths[0]); err != nil {
		return badInput(fmt.Errorf("-base %s: cannot build the A/B driver against it (it needs package perf's Lookup, Workload.Bench, Workload.Run and SampleLatency, and code that compiles): %w", ref, err))
	}
	if err := ab.Build(ctx, ab.BuildSpec{Dir: mod, Label: "the working tree"}, paths[1]); err != nil {
		return badInput(err)
	}
	drivers, err := startDrivers(paths, []string{"base", "head"}, env, f.cpuList)
	if err != nil {
		return err
	}
	defer closeDrivers(drivers)
	cfg.Sides = drivers
	cfg.Progress = abProgress(stderr)
	// A row the base does not have (a new benchmark) cannot be paired:
	// it is named and left out.
	if cfg.Rows, cfg.Latency, err = commonRows(drivers, cfg.Rows, cfg.Latency, stderr); err != nil {
		return err
	}
	if cfg.Budget == 0 {
		// Every row gets the same pairs: the first round can show that
		// they are too few for the rows that vary.
		cfg.FirstRound = blindEarly(g.filter, cfg.Rounds-cfg.Discard, opts.Alpha, cfg.Discard)
	}
	meter, merr := cpuload.Start()
	res, err := ab.Run(ctx, cfg)
	switch {
	case errors.Is(err, gate.ErrBlind):
		return badInput(err)
	case err != nil:
		return failure(err)
	}
	closeDrivers(drivers) // waited for, their CPU time is kcbench's own
	load := loadLine(meter, merr)
	rep := gate.JudgeAB(abInputs(g.filter, res.Rows), gate.ABRun{Base: baseLabel, Head: "working tree", Sample: sampleName(cfg), Order: orderName(cfg), Elapsed: res.Elapsed, Load: load, Discard: cfg.Discard}, opts)
	return writeGate(stdout, rep)
}

// warnWorkloadsChanged warns when package perf, which defines the
// workloads, differs between the base and the working tree: each side's
// driver runs its own workloads, so a row whose workload changed compares
// two different programs, and its ratio is not the runtime's change alone.
// A failure to tell is only noted.
func warnWorkloadsChanged(ctx context.Context, stderr io.Writer, wt *ab.Worktree, mod, baseLabel string) {
	files, err := wt.Changed(ctx, mod, "perf")
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "cannot tell whether the workloads (package perf) changed since %s: %v\n", baseLabel, err)
	case len(files) > 0:
		fmt.Fprintf(stderr, "warning: the workloads (package perf) differ between %s and the working tree (%s): the rows of a changed workload compare two different workloads, not only two runtimes\n",
			baseLabel, strings.Join(files, ", "))
	}
}

// plan returns the benchmarks and the latency samplers to measure: those
// of -bench and -backends (the samplers only with -latency) that -filter
// keeps, a benchmark by its sec/op row, a sampler by any of its
// percentile rows. A selection -filter empties is a usage error.
func (g abGate) plan() (rows, latency []string, err error) {
	items, err := planRun(runFlags{bench: g.bench, backends: g.backends, count: 1, benchtime: "1x", watchdog: 1, latency: g.latency})
	if err != nil {
		return nil, nil, err
	}
	for _, it := range items {
		if abMatch(g.filter, it.Name(), results.SecPerOp) {
			rows = append(rows, it.Name())
		}
	}
	if g.latency > 0 {
		for _, l := range latencySamplers(items) {
			if slices.ContainsFunc(results.LatencyUnits, func(u string) bool { return abMatch(g.filter, ab.LatencyPrefix+l, u) }) {
				latency = append(latency, l)
			}
		}
	}
	if len(rows)+len(latency) == 0 {
		return nil, nil, usageError("-filter %q leaves no row of the selected benchmarks", g.filterQuery)
	}
	return rows, latency, nil
}

// abMatch reports whether filter keeps the A/B row name in unit (a
// tidied unit), as it would keep that benchmark's values of unit in a
// results file (without the -GOMAXPROCS suffix of its name, and without
// file configuration).
func abMatch(filter *benchproc.Filter, name, unit string) bool {
	res := &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1, Values: []benchfmt.Value{{Value: 1, Unit: unit}}}
	ok, _ := filter.Apply(res)
	return ok
}

// abKept returns the tidied unit of a measured row (benchfmt's tidying:
// ns/op is sec/op, p50-ns is p50-sec) and the scale to it, and whether
// filter keeps the row.
func abKept(filter *benchproc.Filter, r *ab.RowResult) (scale float64, unit string, ok bool) {
	scale, unit = benchunit.Tidy(1, r.Unit)
	return scale, unit, abMatch(filter, r.Name, unit)
}

// blindEarly returns the ab.Config.FirstRound of a run whose rows all get
// n pairs: gate.ABBlindEarly on the first pair of every row that filter
// keeps (the rows to be judged).
func blindEarly(filter *benchproc.Filter, n int, alpha float64, discard int) func([]*ab.RowResult) error {
	return func(rows []*ab.RowResult) error {
		var first []paired.Pair
		for _, r := range rows {
			if _, _, ok := abKept(filter, r); ok {
				first = append(first, r.Pairs(1)[0])
			}
		}
		return gate.ABBlindEarly(first, n, alpha, discard)
	}
}

// latencySamplers returns the latency samplers of the planned items, in
// plan order, as ab.Config.Latency names them: <Workload>/backend=<b> for
// every item of a workload that has latency lines in "kcbench run"
// (runner.LatencyPlan). Their rows are named as those lines are,
// ab.LatencyPrefix+<Workload>/backend=<b>, with the percentile as unit.
func latencySamplers(items []runner.Item) []string {
	var out []string
	for _, l := range runner.LatencyPlan(items) {
		out = append(out, strings.TrimPrefix(l.Name(), ab.LatencyPrefix))
	}
	return out
}

// commonRows drops the benchmarks and latency samplers that the base
// build does not know (asking it for one op of each benchmark, one
// sample of each sampler), naming them on stderr. A row the head build
// fails on is an error: the head is what is gated. So is a base driver
// that has no latency request (ab.ErrNoLatency), and a selection that
// leaves nothing to judge.
func commonRows(drivers []*ab.Driver, rows, latency []string, stderr io.Writer) (keptRows, keptLatency []string, err error) {
	var dropped []string
	common := func(names []string, prefix string, probe func(d *ab.Driver, name string) error) ([]string, error) {
		var kept []string
		for _, name := range names {
			if err := probe(drivers[1], name); err != nil {
				return nil, failure(err)
			}
			switch err := probe(drivers[0], name); {
			case errors.Is(err, ab.ErrNoLatency):
				return nil, badInput(fmt.Errorf("-base: %w; gate it with -latency 0", err))
			case errors.Is(err, ab.ErrDriver):
				return nil, err
			case err != nil:
				dropped = append(dropped, prefix+name)
			default:
				kept = append(kept, name)
			}
		}
		return kept, nil
	}
	keptRows, err = common(rows, "", func(d *ab.Driver, name string) error {
		_, err := d.Bench(name, "1x", 0)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	keptLatency, err = common(latency, ab.LatencyPrefix, func(d *ab.Driver, name string) error {
		_, err := d.Latency(name, 1)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if len(dropped) > 0 {
		fmt.Fprintf(stderr, "not in the base build (not judged): %s\n", strings.Join(dropped, ", "))
	}
	if len(keptRows)+len(keptLatency) == 0 {
		return nil, nil, badInput(errors.New("-base: no selected benchmark runs on both builds"))
	}
	return keptRows, keptLatency, nil
}

// abInputs returns the rows of an A/B run that filter keeps as the gate's
// inputs: side 0's values (the base build's) as Base, side 1's (the
// working tree's) as Head, in the tidied unit.
func abInputs(filter *benchproc.Filter, rows []*ab.RowResult) []gate.ABInput {
	var inputs []gate.ABInput
	for _, r := range rows {
		scale, unit, ok := abKept(filter, r)
		if !ok {
			continue // a latency percentile -filter leaves out
		}
		inputs = append(inputs, gate.ABInput{Name: r.Name, Unit: unit, Base: scaled(r.Ns[0], scale), Head: scaled(r.Ns[1], scale)})
	}
	return inputs
}

// scaled returns xs multiplied by scale.
func scaled(xs []float64, scale float64) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = v * scale
	}
	return out
}
