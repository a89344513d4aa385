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

	"github.com/kcbench/kcbench/cmd/kcbench/internal/ab"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/gate"
)

// runGateAB implements "kcbench gate -base ref".
func runGateAB(stdout, stderr io.Writer, ref, bench, backends string, f *abFlags, opts gate.Options) error {
	cfg, env, err := f.config()
	if err != nil {
		return err
	}
	items, err := planRun(runFlags{bench: bench, backends: backends, count: 1, benchtime: "1x", watchdog: 1})
	if err != nil {
		return err
	}
	for _, it := range items {
		cfg.Rows = append(cfg.Rows, it.Name())
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
		return badInput(fmt.Errorf("-base %s: cannot build the A/B driver against it (it needs package perf's Lookup, Workload.Bench and Workload.Run, and code that compiles): %w", ref, err))
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
	cfg.Rows, err = commonRows(drivers, cfg.Rows, stderr)
	if err != nil {
		return err
	}
	res, err := ab.Run(ctx, cfg)
	if err != nil {
		return failure(err)
	}
	var inputs []gate.ABInput
	for _, r := range res.Rows {
		inputs = append(inputs, gate.ABInput{Name: r.Name, Base: nsToSec(r.Ns[0]), Head: nsToSec(r.Ns[1])})
	}
	rep := gate.JudgeAB(inputs, gate.ABRun{Base: baseLabel, Head: "working tree", Sample: sampleName(cfg), Order: orderName(cfg), Elapsed: res.Elapsed}, opts)
	return writeGate(stdout, rep)
}

// commonRows drops the rows that the base build does not know (asking
// it for one op of each), naming them on stderr. A row the head build
// fails on is an error: the head is what is gated.
func commonRows(drivers []*ab.Driver, rows []string, stderr io.Writer) ([]string, error) {
	var kept, dropped []string
	for _, name := range rows {
		if _, err := drivers[1].Bench(name, "1x", 0); err != nil {
			return nil, failure(err)
		}
		if _, err := drivers[0].Bench(name, "1x", 0); err != nil {
			if errors.Is(err, ab.ErrDriver) {
				return nil, err
			}
			dropped = append(dropped, name)
			continue
		}
		kept = append(kept, name)
	}
	if len(dropped) > 0 {
		fmt.Fprintf(stderr, "not in the base build (not judged): %s\n", strings.Join(dropped, ", "))
	}
	if len(kept) == 0 {
		return nil, badInput(errors.New("-base: no selected benchmark runs on both builds"))
	}
	return kept, nil
}

// nsToSec converts ns/op values to sec/op.
func nsToSec(ns []float64) []float64 {
	out := make([]float64, len(ns))
	for i, v := range ns {
		out[i] = v * 1e-9
	}
	return out
}
