package main

// This file holds the commands that draw: plot (charts) and report
// (report.md with its charts).

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/plot"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/report"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

func init() {
	register(&command{
		name:     "report",
		synopsis: "[-baseline file] [-o dir] [-plots=false] results.txt",
		summary:  "write report.md (and its charts) for a results file",
		doc: `Report writes <dir>/report.md for the results file: the machine and build
configuration (goos, goarch, cpu, gomaxprocs, go-version, commit and
kcbench-version file keys), the spec targets with pass/fail marks, one
table per workload with the backends side by side (median ± CI of each
unit, the minimum detectable effect (MDE, 90% power) of sec/op, the
sec/op ratio to every peer present and to the floor paired by round with
its 95% interval and MDE, and with -baseline the change against the
baseline and its MDE), the latency percentiles, and the charts of
"kcbench plot", which it also draws into <dir> unless -plots=false (a
file with nothing to chart gets the report without charts, which says
why).
docs/gate.md explains the statistics.
It prints the files it wrote, one per line.`,
		run: runReport,
	})
}

// runReport implements "kcbench report".
func runReport(stdout, stderr io.Writer, args []string) error {
	c, _ := lookup("report")
	fs := c.flagSet(stderr)
	dir := fs.String("o", ".", "output `directory` (created if needed)")
	baseline := fs.String("baseline", "", "baseline results `file` to compare against")
	withPlots := fs.Bool("plots", true, "draw the charts into the output directory and embed them")
	ext := fs.String("embed", "svg", "chart `format` to embed: svg or png")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("report needs exactly one results file, got %d", fs.NArg())
	}
	if *ext != "svg" && *ext != "png" {
		return usageError("-embed %q: want svg or png", *ext)
	}
	set, err := loadResults(stderr, fs.Arg(0))
	if err != nil {
		return err
	}
	opts := report.Options{Plots: *withPlots, PlotExt: "." + *ext}
	if *baseline != "" {
		if opts.Baseline, err = loadResults(stderr, *baseline); err != nil {
			return err
		}
		opts.BaselineName = filepath.Base(*baseline)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	var written []string
	if *withPlots {
		// Nothing to chart is no reason to withhold the tables: the
		// report says why it has no charts, as run's does.
		written, err = plot.Write(*dir, set)
		switch {
		case errors.Is(err, plot.ErrNoData):
			opts.Plots, opts.NoCharts = false, err.Error()
		case err != nil:
			return err
		}
	}
	path, err := writeReport(*dir, set, opts)
	if err != nil {
		return err
	}
	for _, f := range append(written, path) {
		fmt.Fprintln(stdout, f)
	}
	return nil
}

// writeReport renders report.md into dir and returns its path. A results
// file without workloads is bad input, and leaves no report.md behind.
func writeReport(dir string, set *results.Set, opts report.Options) (string, error) {
	var b bytes.Buffer
	if err := report.Render(&b, set, opts); err != nil {
		return "", badInput(err)
	}
	path := filepath.Join(dir, "report.md")
	return path, os.WriteFile(path, b.Bytes(), 0o644)
}

func init() {
	register(&command{
		name:     "plot",
		synopsis: "[-o dir] results.txt",
		summary:  "draw PNG and SVG charts of a results file",
		doc: `Plot draws, for every workload in the results file, PNG and SVG charts:

  <Workload>-ratio     each backend's median sec/op relative to peer-go
                       (or to the first backend), with confidence-interval
                       error bars and a dotted line at the floor
  <Workload>-scaling   for workloads run at several /n= sizes, a log-log
                       chart of sec/op against n
  latency-<Workload>   for workloads with latency lines, their
                       p50/p90/p99/p99.9 latencies

It prints the files it wrote, one per line.`,
		run: runPlot,
	})
}

// runPlot implements "kcbench plot".
func runPlot(stdout, stderr io.Writer, args []string) error {
	c, _ := lookup("plot")
	fs := c.flagSet(stderr)
	dir := fs.String("o", ".", "output `directory` (created if needed)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("plot needs exactly one results file, got %d", fs.NArg())
	}
	set, err := loadResults(stderr, fs.Arg(0))
	if err != nil {
		return err
	}
	files, err := plot.Write(*dir, set)
	if errors.Is(err, plot.ErrNoData) {
		return badInput(fmt.Errorf("%s: %w", fs.Arg(0), err))
	}
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return err
}
