package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/matrix"
	"github.com/kcbench/kcbench/conformance"
	"github.com/kcbench/kcbench/conformance/model"
	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/kc"
)

func init() {
	register(&command{
		name:     "conform",
		synopsis: "[-backends list] [-run regexp] [-format text|markdown] [-watchdog d] [-fuzz n [-seed s] [-exclude list] [-shrink]]",
		summary:  "run the conformance suite, or the model-based random checker, on every backend",
		doc: `Conform runs the conformance cases (package conformance: the spec's testing
matrix) on each backend, each case on a fresh runtime under a watchdog, and
prints the matrix of cases x backends with pass/fail and time, then every
failure in full.

With -fuzz n it runs n random programs per backend instead (package
conformance/model), each checked against the model's outcome, from the
seed -seed on; a backend stops at its first mismatch, which is shrunk
(-shrink) and printed with its seed and the command that replays it.
-seed, -exclude and -shrink apply only with -fuzz, and -run, -format and
-times only without it: given in the other mode they are a usage error.

Exit status: 0 when every case (or program) passes on every backend, 1
on any failure, 2 on a usage error (unknown backend or format, bad
regexp, a flag of the other mode).`,
		run: runConform,
	})
}

// ErrConformance is wrapped by conform's error when a case fails.
var ErrConformance = errors.New("conformance failures")

func runConform(stdout, stderr io.Writer, args []string) error {
	c, _ := lookup("conform")
	fs := c.flagSet(stderr)
	backendsFlag := fs.String("backends", strings.Join(runtimes.Names(), ","), "comma-separated `list` of backends")
	runFlag := fs.String("run", "", "run only the cases whose name matches `regexp`")
	format := fs.String("format", "text", "output `format`: "+strings.Join(matrix.Formats, " or "))
	watchdog := fs.Duration("watchdog", 20*time.Second, "fail a case that takes longer than `d`")
	times := fs.Bool("times", true, "show how long each case took")
	fuzz := fs.Int("fuzz", 0, "run `n` random programs per backend against the model instead of the cases")
	seed := fs.Uint64("seed", 1, "the first random program's `seed` (with -fuzz)")
	exclude := fs.String("exclude", "none", "known-open defects whose programs -fuzz leaves out: a comma-separated `list`, known or none")
	shrink := fs.Bool("shrink", true, "shrink a failing random program (with -fuzz)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageError("conform takes no arguments, got %q", fs.Args())
	}
	if err := checkBounds(bound{"fuzz", *fuzz, *fuzz >= 0, "at least 0"}); err != nil {
		return err
	}
	if *fuzz > 0 {
		if err := onlyIn(fs, "without -fuzz", "run", "format", "times"); err != nil {
			return err
		}
		excl, err := model.ParseExclude(*exclude)
		if err != nil {
			return usageError("-exclude: %w", err)
		}
		if err := checkBounds(bound{"watchdog", *watchdog, *watchdog > 0, "a positive duration"}); err != nil {
			return err
		}
		return runFuzz(stdout, *backendsFlag, fuzzOptions{programs: *fuzz, seed: *seed, exclude: excl, shrink: *shrink, watchdog: *watchdog})
	}
	if err := onlyIn(fs, "with -fuzz", "seed", "exclude", "shrink"); err != nil {
		return err
	}
	if !slices.Contains(matrix.Formats, *format) {
		return usageError("-format %q: want one of %s", *format, strings.Join(matrix.Formats, ", "))
	}
	m, err := conformMatrix(*backendsFlag, *runFlag, *watchdog)
	if err != nil {
		return err
	}
	if err := matrix.Render(stdout, m, *format, *times); err != nil {
		return err
	}
	if n := m.Failures(); n > 0 {
		return failure(fmt.Errorf("%w: %d of %d", ErrConformance, n, len(m.Cases)*len(m.Backends)))
	}
	return nil
}

// conformMatrix runs the cases selected by the run regexp on the listed
// backends. Bad arguments are usage errors.
func conformMatrix(backendList, run string, watchdog time.Duration) (*matrix.Matrix, error) {
	backends, err := parseBackends(backendList)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(run)
	if err != nil {
		return nil, usageError("-run: %w", err)
	}
	if err := checkBounds(bound{"watchdog", watchdog, watchdog > 0, "a positive duration"}); err != nil {
		return nil, err
	}
	var cases []conformance.Case
	m := &matrix.Matrix{Backends: backends, Specs: map[string]string{}, Cells: map[string][]matrix.Cell{}}
	for _, c := range conformance.Cases() {
		if re.MatchString(c.Name) {
			cases = append(cases, c)
			m.Cases = append(m.Cases, c.Name)
			m.Specs[c.Name] = c.Spec
		}
	}
	if len(cases) == 0 {
		return nil, usageError("-run %q matches no case", run)
	}
	for _, b := range backends {
		newRuntime := func() (*kc.Runtime, error) { return runtimes.New(b) }
		for _, r := range conformance.RunCases(newRuntime, cases, watchdog) {
			m.Cells[r.Case] = append(m.Cells[r.Case], matrix.Cell{Err: r.Err, Duration: r.Duration})
		}
	}
	return m, nil
}

// parseBackends splits a comma-separated list and checks every name is
// registered.
func parseBackends(list string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if err := runtimes.Validate(name); err != nil {
			return nil, usageError("-backends: %w", err)
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, usageError("-backends lists no backend")
	}
	return out, nil
}
