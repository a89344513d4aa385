// Package plot draws the charts of a kcbench results file with
// gonum.org/v1/plot, each as a PNG and an SVG file.
//
// Charts and their file names (stable: reports link to them):
//
//	<Workload>-ratio.png/.svg    per workload, every backend's median
//	                             sec/op as a ratio to the reference
//	                             backend (peer-go when the workload has
//	                             it, else the first backend), with the
//	                             95% confidence interval of the median
//	                             as error bars (also divided by the
//	                             reference's median), a dashed line
//	                             at 1 and, when the floor was run, a
//	                             dotted line at the floor's height, so
//	                             that each bar shows its distance from
//	                             both. For a workload run at several
//	                             /n= sizes, at the largest size.
//	<Workload>-scaling.png/.svg  per workload with two or more /n=
//	                             sizes (CancelFanout, FanOut): median
//	                             sec/op against n on log-log axes, one
//	                             line per backend.
//	latency-<Workload>.png/.svg  per workload with latency lines: the
//	                             p50, p90, p99 and p99.9 latencies of
//	                             every backend (median over the runs),
//	                             log y axis, one line per backend.
//
// Latency lines are benchmark lines of the form
//
//	BenchmarkLatency/<Workload>/backend=<name> <N> <p50> p50-ns <p90> p90-ns <p99> p99-ns <p999> p99.9-ns
//
// where N is the number of sampled operations (see package results).
//
// Every chart is Width x Height (6 x 4 inches): the PNG is 576 x 384
// pixels (96 dpi) and the SVG root has width="432pt" height="288pt".
// When a results file mixes GOMAXPROCS values, a chart uses the runs at
// the highest one. Characters other than letters, digits, '.', '_' and
// '-' in a workload name become '_' in file names.
package plot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// ErrNoData reports a results file with nothing to plot.
var ErrNoData = errors.New("nothing to plot: no positive sec/op or latency results")

// Chart size.
const (
	Width  = 6 * vg.Inch
	Height = 4 * vg.Inch
)

// Formats are the file extensions every chart is written in.
var Formats = []string{".png", ".svg"}

// A Kind is a kind of chart.
type Kind int

// Chart kinds.
const (
	Ratio Kind = iota
	Scaling
	Latency
)

// A Chart is one planned chart.
type Chart struct {
	Kind     Kind
	Workload string
	// Name is the file name without extension, e.g. "JobCreate-ratio".
	Name string
}

// Files returns the chart's file names, one per format.
func (c Chart) Files() []string {
	out := make([]string, len(Formats))
	for i, ext := range Formats {
		out[i] = c.Name + ext
	}
	return out
}

// Plan lists the charts that Write draws for set, in a stable order:
// per workload its ratio and scaling charts, then the latency charts.
// Charts without positive data to draw (a zero or negative reference,
// say) are left out.
func Plan(set *results.Set) []Chart {
	var charts []Chart
	for _, d := range plan(set) {
		if d.err == nil {
			charts = append(charts, d.Chart)
		}
	}
	return charts
}

// drawing is a candidate chart with its plot, or the error that
// prevented drawing it.
type drawing struct {
	Chart
	p   *plot.Plot
	err error
}

// plan builds every candidate chart of set.
func plan(set *results.Set) []drawing {
	series := set.Series()
	var charts []Chart
	for _, w := range results.Workloads(series) {
		ws := results.Select(series, results.Query{Workload: w, Unit: results.SecPerOp, AnyN: true})
		if len(ws) == 0 {
			continue
		}
		charts = append(charts, Chart{Ratio, w, FileBase(w) + "-ratio"})
		if len(results.Sizes(ws)) >= 2 {
			charts = append(charts, Chart{Scaling, w, FileBase(w) + "-scaling"})
		}
	}
	seen := map[string]bool{}
	for _, ser := range series {
		if ser.Latency && !seen[ser.Workload] {
			seen[ser.Workload] = true
			charts = append(charts, Chart{Latency, ser.Workload, "latency-" + FileBase(ser.Workload)})
		}
	}
	out := make([]drawing, len(charts))
	for i, c := range charts {
		p, err := draw(c, set, series)
		out[i] = drawing{c, p, err}
	}
	return out
}

// FileBase makes a workload name safe for a file name.
func FileBase(workload string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, workload)
}

// Write draws every chart of Plan(set) into dir (created if needed) and
// returns the paths written. It fails with ErrNoData when there is no
// chart to draw.
func Write(dir string, set *results.Set) ([]string, error) {
	var todo []drawing
	for _, d := range plan(set) {
		switch {
		case d.err == nil:
			todo = append(todo, d)
		case !errors.Is(d.err, errNoPositive):
			return nil, fmt.Errorf("%s: %w", d.Name, d.err)
		}
	}
	if len(todo) == 0 {
		return nil, ErrNoData
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, d := range todo {
		for _, name := range d.Files() {
			path := filepath.Join(dir, name)
			if err := d.p.Save(Width, Height, path); err != nil {
				return written, fmt.Errorf("writing %s: %w", path, err)
			}
			written = append(written, path)
		}
	}
	return written, nil
}

// draw builds the plot of one chart.
func draw(c Chart, set *results.Set, series []*results.Series) (*plot.Plot, error) {
	switch c.Kind {
	case Ratio:
		return ratioChart(c.Workload, set, series)
	case Scaling:
		return scalingChart(c.Workload, set, series)
	case Latency:
		return latencyChart(c.Workload, set, series)
	}
	return nil, fmt.Errorf("unknown chart kind %d", c.Kind)
}
