package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/calibrate"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/gate"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/runner"
	"github.com/kcbench/kcbench/perf"
)

func init() {
	register(&command{
		name:     "calibrate",
		synopsis: "-ab [-bench regexp] [-backend list] [-slowdowns list|none] [-trials N] [-format text|json] [A/B flags] | [-bench name] [-trials N] [-samples N] [-benchtime d] [-slowdowns list] [flags]",
		summary:  "measure the gate's false alarms and detection rate on this machine",
		doc: `With -ab, calibrate measures the A/B gate (gate -base) through its own
machinery: each trial runs every selected row (-bench regexp, -backend
kc backends) on two builds of the working tree (A/A: a significant
"regressed" is a false alarm) and on builds of it with a known extra
cost in the kc core's launch, await and park paths (the kcslow build
tag, package runtimes/kc/kcslow).

A +X% slowdown is X% of the row's measured ns/op: a counting probe build
gives the injection calls per op, and the spin steps per call are chosen
from them and the measured cost of a step. Then (-tune, the default)
pilot A/B runs of 100 pairs measure each slowdown build, and its steps
follow a line fitted to the pilots until a pilot is within a quarter of
the nominal effect (3 pilots at most). JobCreate's Launch partly
overlaps with its children running on the other core, so its injected
nanoseconds show only in part; the output gives the measured ratio of
every slowdown in the trials next to the nominal one.

Trials are judged as a gate run (Holm across the rows; for a slowdown,
that row slowed among the others' A/A pairs). It prints "A/A false
alarms: K (P%)", "slowdown +X%: detected K (P%)", a line per row, and
the noise of every row (the quartiles of the A/A pair ratios; per
estimator its spread over the trials and its shift under the first
slowdown); -format json. -raw saves the pairs, -from-raw judges saved
ones. Exit 0 when at most 5% of trials raise a false alarm and some
slowdown is detected in >= 90% of trials on every row, measured or
judged from saved pairs alike. Settings under which the gate is blind
(without -budget, -count pairs that cannot reach Holm's level -alpha
over the rows: at least 1+log2(rows/alpha)) are a usage error, before
anything is built.

Without -ab, calibrate measures the stored-baseline gate. It runs
peer-go's version of a workload (-bench) as it is, twice (an A/A
comparison: the same build against itself), and slowed down by each
-slowdowns fraction (perf.NewSlowed: a known busy delay added per op, a
real regression), -samples runs of -benchtime per side and trial,
interleaved. Every trial is judged with the gate's own statistics
(Mann-Whitney U, -alpha, -max-regress; -family simulates the
Holm-Bonferroni correction of a gate run judging that many rows). It
prints the false-alarm rate of the A/A comparisons, the detection rate of
every slowdown, and the smallest slowdown detected in >= 90% of trials.

The defaults mirror a default "kcbench run" and its gate: 10 samples
(-samples, as run's -count) of 50ms (-benchtime) a side, and a Holm
family as large as the number of rows such a run gives the gate
(-family, about 3 per benchmark and 4 per latency line). 10 trials x 10
samples x 4 sides take about half a minute; raise -trials for tighter
rates (each trial moves a rate by 1/trials).

Exit status: 0 when the gate is trustworthy here (<= 5% false alarms and
some slowdown detected in >= 90% of trials); 1 when it is not, or a run
fails; 2 on a usage error, which includes -samples too few for -family
(no slowdown could be detected: 6 a side reach p = 0.0022, enough for a
family of 23) and a flag of the other mode (one marked -ab: or A/B:
without -ab; -samples, -benchtime or -family with it).`,
		run: runCalibrate,
	})
}

// runCalibrate implements "kcbench calibrate".
func runCalibrate(stdout, stderr io.Writer, args []string) error {
	c, _ := lookup("calibrate")
	fs := c.flagSet(stderr)
	cfg := calibrate.Config{Trials: 10, Samples: 10, Alpha: gate.DefaultOptions.Alpha, MaxRegress: gate.DefaultOptions.MaxRegress, Family: defaultFamily()}
	bench := fs.String("bench", "JobCreate", "workload whose peer-go version is measured: "+strings.Join(perf.SlowedWorkloads(), ", "))
	fs.IntVar(&cfg.Trials, "trials", cfg.Trials, "number of `trials`")
	fs.IntVar(&cfg.Samples, "samples", cfg.Samples, "runs per side and trial, as kcbench run's -count (>= 6)")
	benchtime := fs.String("benchtime", "50ms", "length of one run, as kcbench run's -benchtime")
	slowdowns := fs.String("slowdowns", "10%,25%", "comma-separated injected `slowdowns` (-ab: or none, for A/A trials only)")
	maxRegress := percentFlag{cfg.MaxRegress}
	fs.Var(&maxRegress, "max-regress", "the gate's -max-regress `percentage`")
	fs.Float64Var(&cfg.Alpha, "alpha", cfg.Alpha, "the gate's -alpha `level`")
	fs.IntVar(&cfg.Family, "family", cfg.Family, "`number` of comparisons the simulated gate run corrects for (default: the rows of a default run)")
	tune := fs.Bool("tune", true, "-ab: measure every slowdown build in pilot A/B runs (100 pairs, 3 at most) and fit its spin steps to the nominal effect")
	abMode := fs.Bool("ab", false, "calibrate the A/B gate (gate -base): A/A builds and kcslow builds of the working tree")
	backend := fs.String("backend", "stealing", "-ab: comma-separated kc `backends` of the rows")
	format := fs.String("format", "text", "-ab: output `format`, text or json")
	raw := fs.String("raw", "", "-ab: also write every trial's pairs to this JSON `file`")
	fromRaw := fs.String("from-raw", "", "-ab: judge the pairs of these -raw `files` (comma-separated, trials pooled) instead of measuring")
	var abf abFlags
	abf.register(fs, 30)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg.MaxRegress = maxRegress.v
	if *abMode {
		if fs.NArg() != 0 {
			return usageError("calibrate takes no arguments, got %q", fs.Args())
		}
		if err := onlyIn(fs, "without -ab", "samples", "benchtime", "family"); err != nil {
			return err
		}
		c := abCalibration{bench: *bench, backends: *backend, format: *format, raw: *raw, fromRaw: *fromRaw, trials: cfg.Trials, tune: *tune,
			alpha: cfg.Alpha, maxRegress: cfg.MaxRegress, flags: &abf}
		if *slowdowns != "none" { // none: A/A trials only
			var err error
			if c.slowdowns, err = parseSlowdowns(*slowdowns, ", or none"); err != nil {
				return err
			}
		}
		// Package paired takes alpha in (0, 1): at 1 it judges no row.
		if err := checkBounds(
			bound{"trials", c.trials, c.trials >= 1, "at least 1"},
			bound{"alpha", c.alpha, c.alpha > 0 && c.alpha < 1, "a level in (0, 1)"},
		); err != nil {
			return err
		}
		return runCalibrateAB(stdout, stderr, c)
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return usageError("calibrate takes no arguments, got %q", fs.Args())
	}
	if err := onlyIn(fs, "with -ab", marked(fs, "A/B: ", "-ab: ")...); err != nil {
		return err
	}
	if err := runner.ParseBenchtime(*benchtime); err != nil {
		return usageError("-benchtime: %w", err)
	}
	var err error
	if !slices.Contains(perf.SlowedWorkloads(), *bench) {
		return usageError("-bench %q: want one of %s", *bench, strings.Join(perf.SlowedWorkloads(), ", "))
	}
	if cfg.Slowdowns, err = parseSlowdowns(*slowdowns, ""); err != nil {
		return err
	}
	if err := checkBounds(
		bound{"trials", cfg.Trials, cfg.Trials >= 1, "at least 1"},
		bound{"samples", cfg.Samples, cfg.Samples >= gate.MinSamples, fmt.Sprintf("at least %d", gate.MinSamples)},
		bound{"family", cfg.Family, cfg.Family >= 1, "at least 1"},
		bound{"alpha", cfg.Alpha, cfg.Alpha > 0 && cfg.Alpha <= 1, "a level in (0, 1]"},
	); err != nil {
		return err
	}
	// Samples too few for the family are known before anything runs.
	if err := cfg.Check(); err != nil {
		return usageError("-samples %d, -family %d: %w", cfg.Samples, cfg.Family, err)
	}

	base, err := slowedSampler(*bench, 0, *benchtime)
	if err != nil {
		return err
	}
	var slowed []calibrate.Sampler
	for _, s := range cfg.Slowdowns {
		sampler, err := slowedSampler(*bench, s, *benchtime)
		if err != nil {
			return err
		}
		slowed = append(slowed, sampler)
	}
	s, _ := perf.NewSlowed(*bench, 0) // cached: reports the calibrated base
	fmt.Fprintf(stdout, "workload: %s/backend=%s, base %.1f ns/op, %s per run\n", *bench, perf.PeerGo, s.BaseNs, *benchtime)
	res, err := calibrate.RunInjected(base, base, slowed, cfg)
	if err != nil {
		return err
	}
	if err := res.WriteText(stdout); err != nil {
		return err
	}
	if !res.Acceptable {
		return failure(fmt.Errorf("the gate cannot be trusted on this machine with these settings: %s", res.Summary()))
	}
	return nil
}

// defaultFamily is about the number of rows the gate judges for a default
// run on the registered backends: sec/op, B/op and allocs/op of every
// benchmark, and the four percentiles of every latency line.
func defaultFamily() int {
	items, err := runner.Plan(runner.Selection{})
	if err != nil {
		return 1
	}
	return 3*len(items) + len(runner.LatencyPercentiles)*len(runner.LatencyPlan(items))
}

// slowedSampler returns a sampler of the sec/op of peer-go's workload
// slowed by s.
func slowedSampler(workload string, s float64, benchtime string) (calibrate.Sampler, error) {
	slowed, err := perf.NewSlowed(workload, s)
	if err != nil {
		return nil, err
	}
	return func(n int) ([]float64, error) {
		out := make([]float64, n)
		for i := range out {
			m, err := runner.Measure(slowed.Bench, benchtime)
			if err != nil {
				return nil, err
			}
			out[i] = m.NsPerOp * 1e-9
		}
		return out, nil
	}, nil
}

// parseSlowdowns parses -slowdowns, a comma-separated list of positive
// percentages, into fractions in increasing order without repeats; alt
// names what else the flag accepts, for the usage error.
func parseSlowdowns(list, alt string) ([]float64, error) {
	var out []float64
	for _, s := range strings.Split(list, ",") {
		v, err := gate.ParsePercent(strings.TrimSpace(s))
		if err != nil || v <= 0 {
			return nil, usageError("-slowdowns: bad slowdown %q: want positive percentages, e.g. 10%%,25%%%s", s, alt)
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
