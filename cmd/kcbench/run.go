package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/runner"
)

// version is kcbench's version, recorded in every results file.
const version = "0.4.0"

func init() {
	register(&command{
		name:     "run",
		synopsis: "[-backends list] [-bench regexp] [-count N] [-benchtime d] [-o dir] [flags]",
		summary:  "run conformance, then every benchmark; write results, report and plots",
		doc: `Run is the main job. It runs the conformance suite on the selected
backends, then every workload (package perf) on every selected backend
and peer, -count rounds interleaved (round 1 runs every benchmark once,
then round 2, ...), so that drift of the machine hits every backend
alike. Each run lasts -benchtime, as with go test; after the first round
a benchmark runs the iteration count its previous round found to fill
-benchtime, without testing.Benchmark's ramp-up. After the benchmarks of
each round it samples the latency percentiles of JobCreate and
AwaitPending (-latency samples each, per backend and round: with the
default 100000, a round's p99.9 is its 100th-largest sample, and its
p99 its 1000th).

The benchmarks of each workload at each size (its backends, peers and
floor, and its latency samples) run in a worker process of their own,
this program started again, one benchmark at a time in the order above.
A Go process keeps what it ran before: every goroutine it ever made stays
on the list that each garbage collection walks, and a large heap goes
back to the OS slowly, to be faulted in again. In one process, every
benchmark after the conformance suite and CancelFanout's hundred
thousand tasks would pay for them, the allocating ones and the floor
rows most; in its own worker, a workload's rows share their own history
and nothing else's.

It writes into the output directory:
  results.txt      Go benchmark format, with the configuration lines goos,
                   goarch, cpu, gomaxprocs, go-version, commit and
                   kcbench-version, and the latency lines
  report.md        the report (see "kcbench report"), with the charts
  *.png, *.svg     the charts (see "kcbench plot")
  conformance.md   the conformance matrix
  machine.md       the machine (CPU count, memory, kernel), the command line
                   and, on Linux, other processes' CPU load during the run
and prints the files it wrote. Progress goes to stderr: one line updated
in place on a terminal, else one log line per benchmark run.

-bench matches <Workload>/backend=<name>[/n=<k>], e.g. -bench JobCreate
or -bench 'FanOut/.*/n=1000$'. -backends takes registered backends,
peers (peer-go, peer-errgroup, peer-conc, peer-context) and floor (each
workload's irreducible work in plain Go); a workload runs on those of
them it has.

The defaults (-count 10, -benchtime 50ms) are chosen for the gate: it
judges about 160 rows with Holm's correction, so its strictest step needs
p <= 0.05/160; the smallest p-value a Mann-Whitney test of 6 against 6
runs can give is 0.002, of 10 against 10 is 0.00001. With fewer than about
8 runs a side no regression can be significant, so more short rounds
beat fewer long ones.

With -precision 2% -budget 10m, run goes on after the -count rounds:
every further round runs only the benchmarks whose median ns/op still
has a 95% interval wider than +-2%, until none is or the benchmarks
have taken 10 minutes in all; the progress shows which are converging.

A backend that fails a conformance case is not benchmarked (a runtime
that breaks the spec has no meaningful numbers), the others are, and
run exits 1 after writing everything. -conform=false skips the suite,
-conform-run selects some of its cases.

Exit status: 0 when conformance and every benchmark passed; 1 on a
conformance failure or a failed benchmark (the results of the rest are
still written); 2 on a usage error.`,
		run: runRun,
	})
}

// ErrBenchmarks is wrapped by run's error when a benchmark failed.
var ErrBenchmarks = errors.New("benchmark failures")

// runFlags are the flags of "kcbench run".
type runFlags struct {
	backends, bench, benchtime, dir, baseline string
	conformRun                                string
	args                                      []string // the command line, for machine.md
	count, latency                            int
	precision                                 percentFlag
	budget                                    time.Duration
	conform                                   bool
	watchdog                                  time.Duration
}

// runRun implements "kcbench run".
func runRun(stdout, stderr io.Writer, args []string) error {
	c, _ := lookup("run")
	fs := c.flagSet(stderr)
	var f runFlags
	fs.StringVar(&f.backends, "backends", "", "comma-separated `list` of backends and peers (default: all)")
	fs.StringVar(&f.bench, "bench", ".", "run only the benchmarks whose name matches `regexp`")
	fs.IntVar(&f.count, "count", 10, "number of interleaved `rounds` (see above: the gate needs about 10)")
	fs.StringVar(&f.benchtime, "benchtime", "50ms", "run each benchmark for `d` (a duration, or Nx iterations)")
	fs.StringVar(&f.dir, "o", filepath.Join("reports", "latest"), "output `directory`")
	fs.IntVar(&f.latency, "latency", 100000, "latency `samples` per backend and round (0: no latency lines)")
	fs.BoolVar(&f.conform, "conform", true, "run the conformance suite first")
	fs.StringVar(&f.conformRun, "conform-run", "", "run only the conformance cases whose name matches `regexp`")
	fs.DurationVar(&f.watchdog, "watchdog", 20*time.Second, "fail a conformance case that takes longer than `d`")
	fs.StringVar(&f.baseline, "baseline", "", "add a vs-baseline row to the report, from this results `file`")
	fs.Var(&f.precision, "precision", "after -count rounds, keep running the benchmarks whose median's 95% interval is wider than +-this `percentage` (needs -budget)")
	fs.DurationVar(&f.budget, "budget", 0, "with -precision: the most wall `time` the benchmarks may take in all")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f.args = args
	if fs.NArg() != 0 {
		fs.Usage()
		return usageError("run takes no arguments, got %q", fs.Args())
	}
	items, err := planRun(f)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.dir, 0o755); err != nil {
		return err
	}
	var written []string
	var failures []error
	if f.conform {
		path, bad, err := conformBeforeRun(stdout, items, f)
		if err != nil {
			return err
		}
		if path != "" {
			written = append(written, path)
		}
		if len(bad) > 0 {
			items = dropBackends(items, bad)
			msg := fmt.Errorf("%w on %s: not benchmarked (see %s)", ErrConformance, strings.Join(bad, ", "), path)
			fmt.Fprintf(stderr, "kcbench run: %v\n", msg)
			failures = append(failures, msg)
		}
	}
	if len(items) > 0 {
		files, err := benchmarkAndReport(stderr, items, f)
		written = append(written, files...)
		if err != nil {
			failures = append(failures, err)
		}
	}
	for _, p := range written {
		fmt.Fprintln(stdout, p)
	}
	if len(failures) > 0 {
		return failure(errors.Join(failures...))
	}
	return nil
}

// planRun checks the flags and plans the benchmarks.
func planRun(f runFlags) ([]runner.Item, error) {
	if err := checkBounds(
		bound{"count", f.count, f.count >= 1, "at least 1"},
		bound{"latency", f.latency, f.latency >= 0, "at least 0"},
		bound{"watchdog", f.watchdog, f.watchdog > 0, "a positive duration"},
		bound{"budget", f.budget, f.budget >= 0, "a duration of at least 0"},
	); err != nil {
		return nil, err
	}
	if f.precision.v > 0 && f.budget == 0 {
		return nil, usageError("-precision needs a -budget (the most time to spend reaching it)")
	}
	if f.budget > 0 && f.precision.v == 0 {
		return nil, usageError("-budget applies only with -precision (it bounds the rounds -precision adds)")
	}
	if err := runner.ParseBenchtime(f.benchtime); err != nil {
		return nil, usageError("-benchtime: %w", err)
	}
	re, err := regexp.Compile(f.bench)
	if err != nil {
		return nil, usageError("-bench: %w", err)
	}
	sel := runner.Selection{Bench: re}
	if f.backends != "" {
		known := runner.KnownBackends()
		for _, b := range strings.Split(f.backends, ",") {
			b = strings.TrimSpace(b)
			if !slices.Contains(known, b) {
				return nil, usageError("-backends: unknown backend %q (known: %s)", b, strings.Join(known, ", "))
			}
			sel.Backends = append(sel.Backends, b)
		}
	}
	items, err := runner.Plan(sel)
	if err != nil {
		return nil, usageError("%w", err)
	}
	return items, nil
}
