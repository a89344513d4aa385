package main

// The steps of "kcbench run": conformance, benchmarks, results file,
// report and charts.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/cpuload"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/matrix"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/plot"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/report"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/runner"
	"github.com/kcbench/kcbench/runtimes"
)

// conformBeforeRun runs the conformance suite on the registered backends
// among items, prints the matrix to stdout, writes it as markdown to
// <dir>/conformance.md and returns that path and the failing backends.
// With no registered backend among items (peers only) it does nothing.
func conformBeforeRun(stdout io.Writer, items []runner.Item, f runFlags) (path string, bad []string, err error) {
	var backends []string
	for _, it := range items {
		if runtimes.Validate(it.Backend) == nil && !slices.Contains(backends, it.Backend) {
			backends = append(backends, it.Backend)
		}
	}
	if len(backends) == 0 {
		return "", nil, nil
	}
	m, err := conformMatrix(strings.Join(backends, ","), f.conformRun, f.watchdog)
	if err != nil {
		return "", nil, err
	}
	if err := matrix.Render(stdout, m, "text", true); err != nil {
		return "", nil, err
	}
	var md bytes.Buffer
	md.WriteString("# kcbench conformance\n\n")
	if err := matrix.Render(&md, m, "markdown", true); err != nil {
		return "", nil, err
	}
	path = filepath.Join(f.dir, "conformance.md")
	if err := os.WriteFile(path, md.Bytes(), 0o644); err != nil {
		return "", nil, err
	}
	return path, m.FailingBackends(), nil
}

// dropBackends returns items without those on the given backends.
func dropBackends(items []runner.Item, drop []string) []runner.Item {
	return slices.DeleteFunc(items, func(it runner.Item) bool { return slices.Contains(drop, it.Backend) })
}

// benchmarkAndReport runs items and writes results.txt, the charts and
// report.md into f.dir; it returns the paths written. Benchmark failures
// are returned (wrapping ErrBenchmarks) after everything that could be
// written was.
func benchmarkAndReport(stderr io.Writer, items []runner.Item, f runFlags) ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start its benchmark workers: %w", err)
	}
	cfg := runner.Config{
		Count: f.count, Benchtime: f.benchtime, LatencySamples: f.latency,
		Precision: f.precision.v, Budget: f.budget,
		Env:      runner.Environment(version),
		Progress: runner.NewReporter(stderr, isTerminal(stderr)),
		Isolate:  &runner.Isolation{Command: func() *exec.Cmd { return workerCommand(self) }},
	}
	meter, merr := cpuload.Start()
	out, runErr := runner.Run(items, cfg)
	load := loadLine(meter, merr)
	if out == nil {
		return nil, runErr
	}
	if runErr != nil {
		runErr = fmt.Errorf("%w: %w", ErrBenchmarks, runErr)
	}
	if len(out.Results) == 0 {
		return nil, runErr
	}
	resultsPath := filepath.Join(f.dir, "results.txt")
	if err := out.WriteFile(resultsPath); err != nil {
		return nil, err
	}
	written := []string{resultsPath}
	machinePath := filepath.Join(f.dir, "machine.md")
	machine := runner.Machine(cfg.Env, append([]string{"kcbench", "run"}, f.args...), time.Now(), load)
	if err := os.WriteFile(machinePath, []byte(machine), 0o644); err != nil {
		return written, err
	}
	written = append(written, machinePath)
	set, err := results.Load(resultsPath)
	if err != nil {
		return written, fmt.Errorf("reading back %s: %w", resultsPath, err)
	}
	opts := report.Options{Plots: true}
	if f.baseline != "" {
		if opts.Baseline, err = results.Load(f.baseline); err != nil {
			return written, errors.Join(runErr, badInput(fmt.Errorf("-baseline: %w", err)))
		}
		opts.BaselineName = f.baseline
	}
	charts, err := plot.Write(f.dir, set)
	written = append(written, charts...)
	if err != nil && !errors.Is(err, plot.ErrNoData) {
		return written, errors.Join(runErr, err)
	}
	opts.Plots = err == nil
	if err != nil { // plot.ErrNoData: the report says so
		opts.NoCharts = err.Error()
	}
	path, err := writeReport(f.dir, set, opts)
	if err != nil {
		return written, errors.Join(runErr, err)
	}
	return append(written, path), runErr
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && runner.IsTerminal(f)
}

// workerCommand is the command of a benchmark worker of "kcbench run": this
// program again, told by the environment to serve (see main).
func workerCommand(self string) *exec.Cmd {
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), runner.WorkerEnv+"=1")
	return cmd
}
