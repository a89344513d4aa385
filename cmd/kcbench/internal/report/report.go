// Package report renders report.md from a kcbench results file and,
// optionally, a baseline: the machine and build configuration, the spec
// targets with pass/fail marks, every backend's standing against the
// best peer of each workload and latency percentile and against the
// fastest backend of each, one table per workload with the backends
// side by side (median ± confidence interval of sec/op, B/op and
// allocs/op, the minimum detectable effect of sec/op, the paired ratio
// of sec/op to every peer present and to the floor (each workload's
// irreducible work in plain Go) with its interval and minimum detectable
// effect, and the change against the baseline), the latency percentiles,
// and the charts of package plot embedded by their stable file names.
package report

import (
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/plot"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// ErrNoWorkloads reports a results file without kcbench workloads.
var ErrNoWorkloads = errors.New("no workload results to report")

// confidence is the confidence level of the intervals in the report.
const confidence = 0.95

// Options configures Render.
type Options struct {
	// Baseline, when not nil, adds a "vs baseline" row to every table.
	Baseline *results.Set
	// BaselineName names the baseline in the configuration table.
	BaselineName string
	// Plots embeds the charts of package plot.
	Plots bool
	// PlotDir is the directory of the charts relative to report.md
	// ("" for the same directory).
	PlotDir string
	// PlotExt is the chart format to embed (default ".svg").
	PlotExt string
	// NoCharts, when not empty, says why the report has no charts (such
	// as plot.ErrNoData's message); the report prints it under the
	// configuration.
	NoCharts string
}

// ConfigKeys are the rows of the configuration table: a label and the
// file configuration keys that give it, first found wins.
var ConfigKeys = []struct {
	Label string
	Keys  []string
}{
	{"goos", []string{"goos"}},
	{"goarch", []string{"goarch"}},
	{"cpu", []string{"cpu"}},
	{"gomaxprocs", []string{"gomaxprocs"}},
	{"go version", []string{"go-version", "go", "goversion"}},
	{"commit", []string{"commit"}},
	{"kcbench version", []string{"kcbench-version"}},
}

// Render writes the report of set to w.
func Render(w io.Writer, set *results.Set, opts Options) error {
	series := set.Series()
	workloads := results.Workloads(series)
	if len(workloads) == 0 {
		return ErrNoWorkloads
	}
	if opts.PlotExt == "" {
		opts.PlotExt = ".svg"
	}
	r := &renderer{set: set, series: series, opts: opts, charts: map[string][]plot.Chart{}}
	if opts.Plots {
		for _, c := range plot.Plan(set) {
			r.charts[c.Workload] = append(r.charts[c.Workload], c)
		}
	}
	if opts.Baseline != nil {
		r.baseSeries = opts.Baseline.Series()
	}
	b := &r.b
	b.WriteString("# kcbench report\n\n")
	r.config()
	if opts.NoCharts != "" {
		fmt.Fprintf(b, "No charts: %s.\n\n", escape(opts.NoCharts))
	}
	r.targets()
	r.standing()
	r.spread()
	b.WriteString(legend)
	for _, wl := range workloads {
		r.workload(wl)
	}
	r.latency()
	_, err := io.WriteString(w, b.String())
	return err
}

// renderer holds the state of one Render call.
type renderer struct {
	b          strings.Builder
	set        *results.Set
	series     []*results.Series
	baseSeries []*results.Series
	opts       Options
	charts     map[string][]plot.Chart
}

// config writes the configuration table.
func (r *renderer) config() {
	b := &r.b
	b.WriteString("| configuration | |\n| :--- | :--- |\n")
	for _, c := range ConfigKeys {
		v := ""
		for _, k := range c.Keys {
			if v = r.set.Config(k); v != "" {
				break
			}
		}
		if v == "" && c.Label == "gomaxprocs" {
			v = r.procs()
		}
		if v == "" {
			v = "unknown"
		}
		fmt.Fprintf(b, "| %s | %s |\n", c.Label, escape(v))
	}
	if r.opts.Baseline != nil {
		name := r.opts.BaselineName
		if commit := r.opts.Baseline.Config("commit"); commit != "" {
			name += " (commit " + commit + ")"
		}
		fmt.Fprintf(b, "| baseline | %s |\n", escape(strings.TrimSpace(name)))
	}
	b.WriteString("\n")
}

// procs returns the GOMAXPROCS values found in benchmark names.
func (r *renderer) procs() string {
	var procs []string
	for _, s := range r.series {
		if s.Procs != "" && !slices.Contains(procs, s.Procs) {
			procs = append(procs, s.Procs)
		}
	}
	return strings.Join(procs, ", ")
}

// targets writes the spec target table: every backend that is not a
// reference (a peer or the floor) of every targeted workload, with
// pass/fail marks for the target and the stretch goal.
func (r *renderer) targets() {
	b := &r.b
	b.WriteString("## Spec targets\n\n")
	b.WriteString("| workload | backend | median | target | | stretch | |\n")
	b.WriteString("| :--- | :--- | ---: | ---: | :---: | ---: | :---: |\n")
	rows := 0
	for _, t := range results.Targets {
		for _, s := range results.Select(r.series, results.Query{Workload: t.Workload, Unit: t.Unit, AnyN: true}) {
			if _, ok := results.TargetFor(s); !ok {
				continue
			}
			m := r.set.Summary(s, confidence).Center
			fmt.Fprintf(b, "| %s | %s | %s | ≤ %s | %s | ≤ %s | %s |\n", t.Workload, escape(s.Backend),
				seconds(m), seconds(t.Max), mark(t.Met(m), "pass", "FAIL"),
				seconds(t.Stretch), mark(t.StretchMet(m), "met", "not met"))
			rows++
		}
	}
	if rows == 0 {
		b.WriteString("| — | no targeted results | | | | | |\n")
	}
	b.WriteString("\n")
}

// mark returns a pass or fail mark with its word.
func mark(ok bool, yes, no string) string {
	if ok {
		return "✅ " + yes
	}
	return "❌ " + no
}

// seconds formats a duration in seconds as benchstat scales it ("312.5ns").
func seconds(v float64) string {
	return benchunit.Scale(v, benchunit.Decimal) + "s"
}

// embed writes the chart of kind for workload, if planned.
func (r *renderer) embed(workload string, kind plot.Kind, alt string) {
	for _, c := range r.charts[workload] {
		if c.Kind == kind {
			file := c.Name + r.opts.PlotExt
			if r.opts.PlotDir != "" {
				file = path.Join(r.opts.PlotDir, file)
			}
			fmt.Fprintf(&r.b, "![%s](%s)\n\n", alt, file)
		}
	}
}

// escape escapes the characters that would break a Markdown table cell
// or be read as emphasis.
var escape = strings.NewReplacer(`|`, `\|`, `*`, `\*`, `_`, `\_`).Replace
