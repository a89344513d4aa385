package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/ab"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/cpuload"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/gate"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/runner"
)

// runGateAB implements "kcbench gate -base ref"; latency is the -latency
// sample count (0: no latency rows).
func runGateAB(stdout, stderr io.Writer, ref, bench, backends string, latency int, f *abFlags, opts gate.Options) error {
	cfg, env, err := f.config()
	if err != nil {
		return err
	}
	items, err := planRun(runFlags{bench: bench, backends: backends, count: 1, benchtime: "1x", watchdog: 1, latency: latency})
	if err != nil {
		return err
	}
	for _, it := range items {
		cfg.Rows = append(cfg.Rows, it.Name())
	}
	if latency > 0 {
		cfg.Latency, cfg.LatencySamples = latencySamplers(items), latency
	}
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
		cfg.FirstRound = blindEarly(cfg.Rounds-cfg.Discard, opts.Alpha, cfg.Discard)
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
	var inputs []gate.ABInput
	for _, r := range res.Rows {
		// benchfmt's tidying: ns/op is sec/op, p50-ns is p50-sec.
		scale, unit := benchunit.Tidy(1, r.Unit)
		inputs = append(inputs, gate.ABInput{Name: r.Name, Unit: unit, Base: scaled(r.Ns[0], scale), Head: scaled(r.Ns[1], scale)})
	}
	rep := gate.JudgeAB(inputs, gate.ABRun{Base: baseLabel, Head: "working tree", Sample: sampleName(cfg), Order: orderName(cfg), Elapsed: res.Elapsed, Load: load, Discard: cfg.Discard}, opts)
	return writeGate(stdout, rep)
}

// blindEarly returns the ab.Config.FirstRound of a run whose rows all get
// n pairs: gate.ABBlindEarly on the first pair of every row.
func blindEarly(n int, alpha float64, discard int) func([]*ab.RowResult) error {
	return func(rows []*ab.RowResult) error {
		first := make([]paired.Pair, len(rows))
		for i, r := range rows {
			first[i] = r.Pairs(1)[0]
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

// scaled returns xs multiplied by scale.
func scaled(xs []float64, scale float64) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = v * scale
	}
	return out
}
