package main

import (
	"errors"
	"fmt"
	"io"

	"golang.org/x/perf/benchproc"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/gate"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

func init() {
	register(&command{
		name:     "gate",
		synopsis: "-base ref [-bench regexp] [-backends list] [flags] | -baseline file [flags] file",
		summary:  "fail on significant regressions or missed spec targets",
		doc: `With -base, gate compares two builds on this machine, now: the git ref
(checked out into a temporary worktree; your tree is untouched) and the
working tree. It builds a benchmark driver against each, runs both as
child processes (fresh ones every -respawn rounds: one process's memory
layout can bias it by several percent for its whole life) and runs every
selected benchmark (-bench, -backends, as for run) on the two in
alternating rounds (ABBA: base, head, head, base, ...), -count rounds of
one -sample each, the op count of a row fixed by a first run; each base
sample is paired with the head sample taken next to it. After the
benchmarks, every round samples the latency of each selected benchmark
of a latency workload (JobCreate, AwaitPending, as run does) once on
each build: -latency single ops, whose p50, p90, p99 and p99.9 are four
rows named as run's latency lines, Latency/<Workload>/backend=<b> with
units p50-sec, p90-sec, p99-sec and p99.9-sec (-latency 0: no latency
rows). Every row is judged on its paired head/base ratios (package
paired: the ratio, its 95% interval, its p-value, Holm-corrected across
all the rows; a row regresses when significant and worse than
-max-regress), with its minimum detectable effect (the smallest change
the run would have caught at 90% power). With -precision and -budget,
rounds are added to the benchmarks whose interval is still wider than
asked until the budget is spent (the latency rows keep their -count
pairs, as run's precision rounds leave out its latency lines). The
drift of a noisy machine hits both sides of a pair alike, so this mode
works on shared and CI machines. Each driver runs
its own side's workloads (package perf): when perf differs between the
two, gate warns and names the files, since a changed workload's rows
then compare two different workloads.

With -baseline, gate compares every benchmark of file with the same
benchmark (same full name, same unit) in a stored baseline results
file, unpaired; it is only valid when both files come from the same
quiet machine, and its mde column says what it could detect. A row of
the baseline that file lacks (a benchmark that failed or was not run, a
changed unit) is not judged, so the gate does not pass: -filter selects a
subset of both files on purpose. Rows only in file are new: listed, not
judged (but their spec targets are checked).

In both modes -filter (a benchfilter query, as compare's) keeps only
the rows it matches: with -baseline, the values of both files; with
-base, the rows by name (JobCreate/backend=stealing,
Latency/JobCreate/backend=stealing) and unit (sec/op, p50-sec, ...),
before anything is measured (file configuration keys match nothing
there).

Both modes print one row per benchmark and unit with its verdict: ok, improved,
regressed, too-few-samples, blind or target-missed. A row is blind when its
samples cannot reach Holm's first-step level alpha/m (m: the rows judged,
less those equal on both sides) even if they all point one way: with -base,
n pairs reach at best p = 2/2^n, so n must be at least 1+log2(m/alpha) (10
pairs for 20 rows, 14 for 280); with -baseline, 6 runs a side reach 0.0022,
enough for 23 rows. The gate cannot see a blind row regress, so it does not
pass it: it exits 2 and says what -count would decide. With -base and
no -budget (every row gets -count pairs), the gate stops after its first
round when the rows that already differ between the builds are too many
for that count.

With -baseline, a benchmark regresses when its median got worse by more than
-max-regress AND the change is significant: Mann-Whitney U test p-values,
Holm-Bonferroni corrected across all comparisons (less the rows holding one
value in both files, which can never differ), at most -alpha. "Worse"
is higher for sec/op, B/op, allocs/op and latencies, lower for rates
(units per second, or better=higher unit metadata). Independently, the
median JobCreate sec/op must be <= 450ns and AwaitCached sec/op <= 150ns
on every backend that is not a reference (a peer-* or the floor).

Exit status: 0 when every row passes; 1 on a regression or a missed
target; 2 on bad input or rows the gate could not decide: unreadable or
empty files, a malformed flag, an A/B: flag without -base, no benchmark
in common, baseline rows missing from file, fewer than 6 samples on a
side of a judged row, blind rows, a -base ref that names no commit or
whose code cannot build the driver.
A regression or a missed target wins over rows that could not be
judged: the gate then exits 1, and names those rows too.`,
		run: runGate,
	})
}

// percentFlag is a flag.Value holding a percentage as a fraction.
type percentFlag struct{ v float64 }

// String returns the percentage.
func (p *percentFlag) String() string { return fmt.Sprintf("%g%%", 100*p.v) }

// Set parses a percentage such as "5%".
func (p *percentFlag) Set(s string) error {
	v, err := gate.ParsePercent(s)
	if err != nil {
		return err
	}
	p.v = v
	return nil
}

// runGate implements "kcbench gate".
func runGate(stdout, stderr io.Writer, args []string) error {
	c, _ := lookup("gate")
	fs := c.flagSet(stderr)
	opts := gate.DefaultOptions
	baseline := fs.String("baseline", "", "stored baseline results `file` (unpaired mode)")
	baseRef := fs.String("base", "", "git `ref` to build and compare with the working tree (A/B mode)")
	bench := fs.String("bench", ".", "A/B: gate only the benchmarks whose name matches `regexp`")
	backends := fs.String("backends", "", "A/B: comma-separated `list` of backends and peers (default: all)")
	latency := fs.Int("latency", 100000, "A/B: latency `samples` per backend, build and round, as run's default (0: no latency rows)")
	var abf abFlags
	abf.register(fs, 30)
	maxRegress := percentFlag{opts.MaxRegress}
	fs.Var(&maxRegress, "max-regress", "largest tolerated worsening of a median, as a `percentage`")
	fs.Float64Var(&opts.Alpha, "alpha", opts.Alpha, "family-wise significance `level` (Holm-Bonferroni)")
	filterFlag := fs.String("filter", "*", "judge only the rows matching benchfilter `query` (e.g. .unit:sec/op, /backend:stealing): with -baseline in both files, with -base by row name and unit, before measuring")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	opts.MaxRegress = maxRegress.v
	filter, err := benchproc.NewFilter(*filterFlag)
	if err != nil {
		return usageError("parsing -filter: %w", err)
	}
	if *baseRef != "" {
		if *baseline != "" || fs.NArg() != 0 {
			return usageError("-base compares builds: it takes neither -baseline nor a results file")
		}
		// Package paired takes alpha in (0, 1): at 1 it judges no row.
		if err := checkBounds(
			bound{"alpha", opts.Alpha, opts.Alpha > 0 && opts.Alpha < 1, "a level in (0, 1) with -base"},
			bound{"latency", *latency, *latency >= 0, "at least 0"},
		); err != nil {
			return err
		}
		return runGateAB(stdout, stderr, abGate{ref: *baseRef, bench: *bench, backends: *backends, latency: *latency, filter: filter, filterQuery: *filterFlag}, &abf, opts)
	}
	if err := onlyIn(fs, "with -base", marked(fs, "A/B: ")...); err != nil {
		return err
	}
	switch {
	case *baseline == "":
		fs.Usage()
		return usageError("gate needs -base or -baseline")
	case fs.NArg() != 1:
		fs.Usage()
		return usageError("gate needs exactly one results file, got %d", fs.NArg())
	}
	if err := checkBounds(bound{"alpha", opts.Alpha, opts.Alpha > 0 && opts.Alpha <= 1, "a level in (0, 1]"}); err != nil {
		return err
	}
	base, err := loadFiltered(stderr, *baseline, filter)
	if err != nil {
		return err
	}
	cur, err := loadFiltered(stderr, fs.Arg(0), filter)
	if err != nil {
		return err
	}
	rep, err := gate.Judge(base, cur, opts)
	if err != nil {
		return badInput(fmt.Errorf("%s vs %s: %w", fs.Arg(0), *baseline, err))
	}
	return writeGate(stdout, rep)
}

// A gateReport is the outcome of either gate mode.
type gateReport interface {
	WriteText(io.Writer) error
	Err() error
}

// writeGate writes rep to stdout and returns its exit status as an
// error: failure (1) for failing rows (a regression or a missed target,
// even when other rows could not be judged: what was found is reported),
// else bad input (2) for rows that could not be judged, could not have
// shown a regression (blind) or are missing from the current results, nil
// when every row passes.
func writeGate(stdout io.Writer, rep gateReport) error {
	if err := rep.WriteText(stdout); err != nil {
		return err
	}
	switch err := rep.Err(); {
	case errors.Is(err, gate.ErrFailed):
		return failure(err)
	case errors.Is(err, gate.ErrTooFewSamples), errors.Is(err, gate.ErrBlind), errors.Is(err, gate.ErrMissing):
		return badInput(err)
	case err != nil:
		return failure(err)
	}
	return nil
}

// loadFiltered loads one results file and keeps the values matching
// filter. A file left without results is bad input.
func loadFiltered(stderr io.Writer, path string, filter *benchproc.Filter) (*results.Set, error) {
	set, err := loadResults(stderr, path)
	if err != nil {
		return nil, err
	}
	kept := set.Results[:0]
	for _, r := range set.Results {
		if ok, _ := filter.Apply(r); ok {
			kept = append(kept, r)
		}
	}
	set.Results = kept
	if len(kept) == 0 {
		return nil, badInput(fmt.Errorf("%s: %w after -filter", path, results.ErrNoResults))
	}
	return set, nil
}
