package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/ab"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/calibrate"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/cpuload"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/gate"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// abCalibration is what "calibrate -ab" was asked to do.
type abCalibration struct {
	bench, backends, format string
	raw, fromRaw            string // files to write the raw pairs to, or to judge instead of measuring
	trials                  int
	tune                    bool // adjust every slowdown's steps to its measured effect first (tuneSlowdown)
	slowdowns               []float64
	alpha, maxRegress       float64
	flags                   *abFlags
}

// runCalibrateAB implements "kcbench calibrate -ab": A/A trials of two
// builds of the working tree, and trials of A against builds with a known
// slowdown of the kc core (package kcslow), all through the A/B
// machinery of "gate -base".
func runCalibrateAB(stdout, stderr io.Writer, c abCalibration) error {
	cfg, env, err := c.flags.config()
	if err != nil {
		return err
	}
	if c.format != "text" && c.format != "json" {
		return usageError("-format %q: want text or json", c.format)
	}
	if c.fromRaw != "" {
		return judgeRaw(stdout, c.fromRaw, c)
	}
	items, err := planRun(runFlags{bench: c.bench, backends: c.backends, count: 1, benchtime: "1x", watchdog: 1})
	if err != nil {
		return err
	}
	var rows []string
	for _, it := range items {
		if results.IsPeer(it.Backend) {
			return usageError("-ab: %s: the injected slowdown is in the kc core, which the peers do not use: choose kc backends (-backend)", it.Name())
		}
		rows = append(rows, it.Name())
	}
	// Every trial judges the rows' sec/op in one Holm family; timed rows
	// always vary, so the family is every row. Without -budget every row
	// gets count-discard pairs: too few for that family make every trial
	// blind, which is known before anything is built.
	if n, level := cfg.Rounds-cfg.Discard, c.alpha/float64(len(rows)); cfg.Budget == 0 && paired.MinP(n) > level {
		return usageError("-ab: %w: %d pairs a row reach at best p = %.2g, above Holm's level %v/%d = %.2g over the %d rows, so no slowdown could be detected; need >= %d pairs a row: -count %d",
			gate.ErrBlind, n, paired.MinP(n), c.alpha, len(rows), level, len(rows), paired.PairsFor(level), paired.PairsFor(level)+cfg.Discard)
	}
	cfg.Alpha = c.alpha
	t0 := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	mod, err := ab.ModuleRoot(".")
	if err != nil {
		return badInput(fmt.Errorf("-ab: run kcbench inside the module: %w", err))
	}
	dir, cleanup, err := tempDir()
	if err != nil {
		return err
	}
	defer cleanup()
	build := func(name string, spec ab.BuildSpec) (string, error) {
		spec.Dir, spec.Label = mod, "the working tree ("+name+")"
		path := filepath.Join(dir, name)
		return path, ab.Build(ctx, spec, path)
	}
	fmt.Fprintf(stderr, "building A, B (the same commit) and a counting kcslow probe\n")
	if len(c.slowdowns) == 0 {
		fmt.Fprintf(stderr, "no slowdowns: A/A trials only\n")
	}
	var paths []string
	for _, s := range []struct {
		name string
		spec ab.BuildSpec
	}{{"A", ab.BuildSpec{}}, {"B", ab.BuildSpec{}}, {"probe", ab.BuildSpec{Kcslow: true, Count: true}}} {
		p, err := build(s.name, s.spec)
		if err != nil {
			return badInput(err)
		}
		paths = append(paths, p)
	}
	drivers, err := startDrivers(paths, []string{"A", "B", "probe"}, env, c.flags.cpuList)
	if err != nil {
		return err
	}
	defer func() { closeDrivers(drivers) }()
	stepNs := calibrate.StepNs()
	setup := make([]calibrate.ABRowSetup, len(rows))
	slowed := make([][]*ab.Driver, len(rows)) // [row][slowdown]
	for i, row := range rows {
		s, err := measureSetup(drivers[0], drivers[2], row, cfg.SampleTime)
		if err != nil {
			return failure(err)
		}
		s.StepNs = stepNs
		for k, sd := range c.slowdowns {
			steps := int(math.Round(sd * s.BaseNs / s.CallsPerOp / stepNs))
			if steps < 1 {
				return badInput(fmt.Errorf("%s costs %.1f ns/op over %.2f injection calls: +%g%% is less than one %.2f ns step a call; choose a dearer row or a larger slowdown",
					row, s.BaseNs, s.CallsPerOp, 100*sd, stepNs))
			}
			label := fmt.Sprintf("%s +%g%%", row, 100*sd)
			start := func(steps int) (*ab.Driver, error) {
				p, err := build(fmt.Sprintf("slow-%d-%d-%d", i, k, steps), ab.BuildSpec{Kcslow: true, Steps: steps})
				if err != nil {
					return nil, badInput(err)
				}
				return ab.StartOn(p, label, env, c.flags.cpuList)
			}
			d, err := start(steps)
			if err != nil {
				return err
			}
			if c.tune {
				pilot := cfg
				pilot.Rows, pilot.Rounds, pilot.Precision, pilot.Budget, pilot.Progress = []string{row}, tunePairs, 0, 0, nil
				if d, steps, err = tuneSlowdown(ctx, stderr, pilot, drivers[0], d, label, sd, steps, start); err != nil {
					return err
				}
			}
			s.Steps = append(s.Steps, steps)
			drivers = append(drivers, d)
			slowed[i] = append(slowed[i], d)
		}
		setup[i] = s
		fmt.Fprintf(stderr, "%s: base %.1f ns/op, %.2f injection calls/op, %.2f ns a step: steps per call %v\n", row, s.BaseNs, s.CallsPerOp, stepNs, s.Steps)
	}
	meter, merr := cpuload.Start()
	var trials []calibrate.ABTrial
	for t := range c.trials {
		tr := newTrial(len(rows), len(c.slowdowns))
		for i, row := range rows {
			rc := cfg
			rc.Rows = []string{row}
			rc.Sides = append([]*ab.Driver{drivers[0], drivers[1]}, slowed[i]...)
			res, err := ab.Run(ctx, rc)
			if err != nil {
				return failure(err)
			}
			tr.put(i, res.Rows[0])
		}
		trials = append(trials, tr.ABTrial)
		fmt.Fprintf(stderr, "trial %d of %d, %v\n", t+1, c.trials, time.Since(t0).Round(time.Second))
	}
	closeDrivers(drivers) // waited for, their CPU time is kcbench's own
	drivers = nil
	load := loadLine(meter, merr)
	if c.raw != "" {
		if err := writeRaw(c.raw, rows, c.slowdowns, trials); err != nil {
			return err
		}
	}
	res := calibrate.JudgeAB(setup, c.slowdowns, trials, paired.Options{Alpha: c.alpha, MaxRegress: c.maxRegress, Confidence: 0.95})
	res.Sample, res.Elapsed, res.Load = sampleName(cfg)+" "+orderName(cfg), time.Since(t0).Round(time.Second).String(), load
	if len(trials) >= 2 {
		res.Noise = calibrate.Noise(rows, trials)
	}
	return writeABCalibration(stdout, res, c.format)
}

// writeABCalibration writes res in format (text or json) and returns the
// calibration's verdict: a failure (exit 1) when the A/B gate cannot be
// trusted with these settings (more than 5% of the trials raised an A/A
// false alarm, or no slowdown was detected in >= 90% of the trials on
// every row), else nil. Measured and saved pairs (-from-raw) are judged
// alike.
func writeABCalibration(stdout io.Writer, res *calibrate.ABResult, format string) error {
	var err error
	if format == "json" {
		err = res.WriteJSON(stdout)
	} else {
		err = res.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if !res.Acceptable(0.05, 0.9) {
		return failure(fmt.Errorf("the A/B gate cannot be trusted here with these settings: %.1f%% A/A false alarms (limit 5%%), or no slowdown detected in >= 90%% of trials on every row", 100*res.FalseAlarmRate))
	}
	return nil
}

// measureSetup measures a row's base cost on driver a (the median of five
// samples of length sample) and its injection calls per op on the
// counting probe (the median of three runs of the same op count).
func measureSetup(a, probe *ab.Driver, row string, sample time.Duration) (calibrate.ABRowSetup, error) {
	s := calibrate.ABRowSetup{Name: row}
	first, err := a.Bench(row, sample.String(), 0)
	if err != nil {
		return s, err
	}
	bt := fmt.Sprintf("%dx", first.N)
	var ns, calls []float64
	for range 5 {
		m, err := a.Bench(row, bt, 0)
		if err != nil {
			return s, err
		}
		ns = append(ns, m.NsPerOp)
	}
	for range 3 {
		m, err := probe.Bench(row, bt, 0)
		if err != nil {
			return s, err
		}
		calls = append(calls, m.Calls)
	}
	slices.Sort(ns)
	slices.Sort(calls)
	s.BaseNs, s.CallsPerOp = ns[2], calls[1]
	if !(s.CallsPerOp > 0) {
		return s, fmt.Errorf("%s passes no kcslow injection point: it cannot be slowed", row)
	}
	return s, nil
}

// writeRaw writes every trial's pairs as JSON: for the study of the
// noise (docs/gate-noise.md), not for the gate.
func writeRaw(path string, rows []string, slowdowns []float64, trials []calibrate.ABTrial) error {
	b, err := json.Marshal(struct {
		Rows      []string
		Slowdowns []float64
		Trials    []calibrate.ABTrial
	}{rows, slowdowns, trials})
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// judgeRaw prints the judgement and noise of pairs saved with -raw
// (a comma-separated list of files with the same rows and slowdowns,
// whose trials are pooled), without measuring anything, and returns the
// verdict of a measured calibration (writeABCalibration).
func judgeRaw(stdout io.Writer, paths string, c abCalibration) error {
	type rawFile struct {
		Rows      []string
		Slowdowns []float64
		Trials    []calibrate.ABTrial
	}
	var raw rawFile
	for i, path := range strings.Split(paths, ",") {
		b, err := os.ReadFile(path)
		if err != nil {
			return badInput(err)
		}
		var f rawFile
		if err := json.Unmarshal(b, &f); err != nil {
			return badInput(fmt.Errorf("%s: %w", path, err))
		}
		if i > 0 && (!slices.Equal(f.Rows, raw.Rows) || !slices.Equal(f.Slowdowns, raw.Slowdowns)) {
			return badInput(fmt.Errorf("%s: rows or slowdowns differ from the first file's", path))
		}
		if err := calibrate.CheckTrials(f.Rows, f.Slowdowns, f.Trials); err != nil {
			return badInput(fmt.Errorf("%s: %w", path, err))
		}
		raw.Rows, raw.Slowdowns, raw.Trials = f.Rows, f.Slowdowns, append(raw.Trials, f.Trials...)
	}
	if len(raw.Trials) == 0 || len(raw.Rows) == 0 {
		return badInput(fmt.Errorf("%s: no trials", paths))
	}
	path := paths
	setup := make([]calibrate.ABRowSetup, len(raw.Rows))
	for i, r := range raw.Rows {
		setup[i].Name = r
	}
	res := calibrate.JudgeAB(setup, raw.Slowdowns, raw.Trials, paired.Options{Alpha: c.alpha, MaxRegress: c.maxRegress, Confidence: 0.95})
	res.Sample = "from " + path
	if len(raw.Trials) >= 2 {
		res.Noise = calibrate.Noise(raw.Rows, raw.Trials)
	}
	return writeABCalibration(stdout, res, c.format)
}

// tunePairs is the number of pairs of one pilot run of tuneSlowdown, and
// tuneRounds the most pilot runs per slowdown.
const (
	tunePairs  = 100
	tuneRounds = 3
)

// tuneSlowdown adjusts a slowdown build to its nominal effect sd on its
// row. The steps computed from the row's ns/op assume that every
// injected nanosecond lengthens the op; where the slowed path overlaps
// with work on another core (JobCreate's Launch while children run on the
// other worker) the op slows by less. So pilot A/B runs (pilot's one row,
// base against the slowed build) measure the effect, and the steps follow
// a line through the origin fitted to every pilot so far (effect = a x
// steps, least squares), which averages the pilots' noise, moving at most
// 3 times up or down per pilot. It stops at the first pilot within a
// quarter of sd, else after tuneRounds pilots with a build at the fitted
// steps. It returns the driver and steps to use, having closed the
// others. The trials measure the slowdown again, independently of the
// pilots, and report it.
func tuneSlowdown(ctx context.Context, stderr io.Writer, pilot ab.Config, base, d *ab.Driver, label string, sd float64, steps int,
	start func(steps int) (*ab.Driver, error)) (_ *ab.Driver, _ int, err error) {
	defer func() {
		if err != nil && d != nil {
			d.Close()
		}
	}()
	var sse, ss float64 // sums of steps x effect and steps squared over the pilots
	for round := range tuneRounds {
		pilot.Sides = []*ab.Driver{base, d}
		res, err := ab.Run(ctx, pilot)
		if err != nil {
			return nil, 0, failure(err)
		}
		est, err := paired.Analyze(res.Rows[0].Pairs(1), 0.95, 0.05)
		if err != nil {
			return nil, 0, failure(fmt.Errorf("%s: pilot: %w", label, err))
		}
		eff := est.Ratio - 1
		fmt.Fprintf(stderr, "%s: pilot %d: %d steps a call measured %+.1f%%\n", label, round+1, steps, 100*eff)
		if math.Abs(eff-sd) <= sd/4 {
			break
		}
		sse += float64(steps) * eff
		ss += float64(steps) * float64(steps)
		next := 3 * steps
		if a := sse / ss; a > 0 {
			next = min(max(int(math.Round(sd/a)), (steps+2)/3), 3*steps)
		}
		next = max(next, 1)
		if next == steps {
			break
		}
		d.Close()
		if d, err = start(next); err != nil {
			d = nil
			return nil, 0, err
		}
		steps = next
		if round == tuneRounds-1 {
			fmt.Fprintf(stderr, "%s: %d steps a call, fitted to the pilots\n", label, steps)
		}
	}
	return d, steps, nil
}

// abTrial is a calibrate.ABTrial being filled, row by row.
type abTrial struct{ calibrate.ABTrial }

// newTrial returns an empty trial of rows rows and slowdowns slowdowns.
func newTrial(rows, slowdowns int) abTrial {
	tr := calibrate.ABTrial{AA: make([][]paired.Pair, rows), Slowed: make([][][]paired.Pair, slowdowns)}
	for k := range tr.Slowed {
		tr.Slowed[k] = make([][]paired.Pair, rows)
	}
	return abTrial{tr}
}

// put stores row i's measurement, whose sides are A, A again, then one
// slowed build per slowdown: A against its copy is the A/A comparison,
// A against slowed build k that of slowdown k.
func (tr abTrial) put(i int, r *ab.RowResult) {
	tr.AA[i] = r.Pairs(1)
	for k := range tr.Slowed {
		tr.Slowed[k][i] = r.Pairs(2 + k)
	}
}
