package report

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/plot"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// standardUnits are shown first, in this order; other units follow in
// order of appearance.
var standardUnits = []string{results.SecPerOp, "B/op", "allocs/op"}

// workload writes the section of one workload: its ratio chart, one
// table per size, and its scaling chart.
func (r *renderer) workload(wl string) {
	ws := results.Select(r.series, results.Query{Workload: wl, AnyN: true})
	fmt.Fprintf(&r.b, "## %s\n\n", wl)
	r.embed(wl, plot.Ratio, wl+": median sec/op relative to the reference backend")
	sizes := results.Sizes(ws)
	if len(sizes) == 0 {
		sizes = []string{""}
	}
	for _, n := range sizes {
		if n != "" {
			fmt.Fprintf(&r.b, "### %s, n=%s\n\n", wl, n)
		}
		r.sizeTable(wl, n, results.Select(ws, results.Query{Workload: wl, N: n}))
	}
	r.embed(wl, plot.Scaling, wl+": median sec/op by n, log-log")
}

// units returns the units of series, standard ones first.
func units(series []*results.Series) []string {
	var us []string
	for _, s := range series {
		if !slices.Contains(us, s.Unit) {
			us = append(us, s.Unit)
		}
	}
	rank := func(u string) int {
		if i := slices.Index(standardUnits, u); i >= 0 {
			return i
		}
		return len(standardUnits)
	}
	slices.SortStableFunc(us, func(a, b string) int { return rank(a) - rank(b) })
	return us
}

// sizeTable writes the table of one workload and size: a column per
// backend; a row per unit (median ± CI) and the sec/op MDE, a row per
// reference present (each peer, then the floor: the paired sec/op ratio,
// its interval and MDE) and, with a baseline that has any of these
// benchmarks, the sec/op change against it and its MDE.
func (r *renderer) sizeTable(wl, n string, ws []*results.Series) {
	b := &r.b
	backends := results.Backends(ws)
	row := func(label string, cells []string) {
		fmt.Fprintf(b, "| %s | %s |\n", label, strings.Join(cells, " | "))
	}
	row("", backends)
	row(":---", slices.Repeat([]string{"---:"}, len(backends)))
	find := func(backend, unit string) *results.Series {
		return results.Find(ws, wl, backend, n, unit)
	}
	centers := map[string]float64{}
	for _, u := range units(ws) {
		summaries := make([]benchmath.Summary, len(backends))
		var present []float64
		for i, be := range backends {
			if s := find(be, u); s != nil {
				summaries[i] = r.set.Summary(s, confidence)
				present = append(present, summaries[i].Center)
			}
		}
		scaler := benchunit.CommonScale(present, benchunit.ClassOf(u))
		cells := make([]string, len(backends))
		for i, be := range backends {
			if find(be, u) == nil {
				cells[i] = "—"
				continue
			}
			cells[i] = scaler.Format(summaries[i].Center) + " ± " + summaries[i].PctRangeString()
			if u == results.SecPerOp {
				centers[be] = summaries[i].Center
			}
		}
		row(escape(u), cells)
		if u == results.SecPerOp {
			for i, be := range backends {
				cells[i] = "—"
				if s := find(be, u); s != nil {
					cells[i] = mdeCell(s)
				}
			}
			row("sec/op MDE", cells)
		}
	}
	for _, peer := range results.References() {
		ref, ok := centers[peer]
		if !ok || ref <= 0 {
			continue
		}
		cells := make([]string, len(backends))
		for i, be := range backends {
			cells[i] = "—"
			c, ok := centers[be]
			switch {
			case !ok:
			case be == peer:
				cells[i] = "1.00×"
			default:
				cells[i] = ratioCell(find(peer, results.SecPerOp), find(be, results.SecPerOp), ref, c)
			}
		}
		row("sec/op vs "+peer, cells)
	}
	if r.opts.Baseline != nil {
		cells := make([]string, len(backends))
		found := false
		for i, be := range backends {
			cells[i] = r.vsBaseline(find(be, results.SecPerOp), wl, be, n)
			found = found || cells[i] != "—"
		}
		if found {
			row("sec/op vs baseline", cells)
		}
	}
	b.WriteString("\n")
}

// vsBaseline compares cur with the same benchmark in the baseline:
// benchstat's delta ("+7.12%", or "~" when not significant at 0.05),
// comparison ("p=0.000 n=10") and the MDE of the two samples.
func (r *renderer) vsBaseline(cur *results.Series, wl, backend, n string) string {
	base := results.Find(r.baseSeries, wl, backend, n, results.SecPerOp)
	if cur == nil || base == nil {
		return "—"
	}
	th := benchmath.DefaultThresholds
	sb := benchmath.NewSample(slices.Clone(base.Values), &th)
	sc := benchmath.NewSample(slices.Clone(cur.Values), &th)
	cmp := benchmath.AssumeNothing.Compare(sb, sc)
	delta := cmp.FormatDelta(benchmath.AssumeNothing.Summary(sb, confidence).Center,
		benchmath.AssumeNothing.Summary(sc, confidence).Center)
	return delta + " (" + cmp.String() + ", MDE " + percent(paired.UnpairedMDE(base.Values, cur.Values, rowAlpha)) + ")"
}

// latency writes the latency section: per workload with latency lines,
// a row per backend with its median p50, p90, p99 and p99.9, and the
// latency chart.
func (r *renderer) latency() {
	workloads := latencyWorkloads(r.series)
	if len(workloads) == 0 {
		return
	}
	b := &r.b
	b.WriteString("## Latency percentiles\n\n")
	for _, wl := range workloads {
		ls := results.Select(r.series, results.Query{Workload: wl, Latency: true})
		fmt.Fprintf(b, "### %s\n\n| backend | %s |\n| :--- |%s\n", wl,
			strings.Join(results.LatencyLabels, " | "), strings.Repeat(" ---: |", len(results.LatencyLabels)))
		for _, be := range results.Backends(ls) {
			cells := make([]string, len(results.LatencyUnits))
			for i, u := range results.LatencyUnits {
				cells[i] = "—"
				if got := results.Select(ls, results.Query{Workload: wl, Backend: be, Unit: u, Latency: true}); len(got) > 0 {
					cells[i] = seconds(r.set.Summary(got[0], confidence).Center)
				}
			}
			fmt.Fprintf(b, "| %s | %s |\n", escape(be), strings.Join(cells, " | "))
		}
		b.WriteString("\n")
		r.embed(wl, plot.Latency, wl+": latency percentiles")
	}
}
