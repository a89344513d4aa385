package plot

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchunit"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// errNoPositive reports a chart whose reference or values are not
// positive, so no ratio or logarithm can be taken.
var errNoPositive = errors.New("no positive values to plot")

// confidence is the confidence level of the error bars.
const confidence = 0.95

// errorPoints are bar heights with asymmetric error bars.
type errorPoints struct {
	plotter.XYs
	plotter.YErrors
}

// Reference returns the backend that ratios are taken against: peer-go
// when present among backends, else the first one.
func Reference(backends []string) string {
	if len(backends) == 0 || slices.Contains(backends, results.ReferencePeer) {
		return results.ReferencePeer
	}
	return backends[0]
}

// ratioChart draws each backend's median sec/op as a ratio to the
// reference backend, with confidence-interval error bars, a dashed line
// at 1 and, when the floor was run, a dotted line at the floor's ratio.
func ratioChart(workload string, set *results.Set, series []*results.Series) (*plot.Plot, error) {
	ws := results.Select(series, results.Query{Workload: workload, Unit: results.SecPerOp, AnyN: true})
	sizes := results.Sizes(ws)
	size := ""
	if len(sizes) > 0 {
		size = sizes[len(sizes)-1]
	}
	ws = results.Select(ws, results.Query{Workload: workload, Unit: results.SecPerOp, N: size})
	backends := results.Backends(ws)
	ref := Reference(backends)
	refSeries := results.Find(ws, workload, ref, size, results.SecPerOp)
	if refSeries == nil {
		return nil, errNoPositive
	}
	refCenter := set.Summary(refSeries, confidence).Center
	if !(refCenter > 0) {
		return nil, errNoPositive
	}
	pts := errorPoints{XYs: make(plotter.XYs, len(backends)), YErrors: make(plotter.YErrors, len(backends))}
	heights := make(plotter.Values, len(backends))
	for i, b := range backends {
		s := set.Summary(results.Find(ws, workload, b, size, results.SecPerOp), confidence)
		heights[i] = s.Center / refCenter
		pts.XYs[i] = plotter.XY{X: float64(i), Y: heights[i]}
		if !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) {
			pts.YErrors[i].Low = (s.Center - s.Lo) / refCenter
			pts.YErrors[i].High = (s.Hi - s.Center) / refCenter
		}
	}
	p := plot.New()
	p.Title.Text = workload + ": median sec/op relative to " + ref
	if size != "" {
		p.Title.Text += " (n=" + size + ")"
	}
	p.Y.Label.Text = "ratio to " + ref + " (lower is faster)"
	p.Y.Min = 0
	bars, err := plotter.NewBarChart(heights, vg.Points(28))
	if err != nil {
		return nil, err
	}
	bars.Color = plotutil.Color(0)
	bars.LineStyle.Width = 0
	errBars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, err
	}
	one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(len(backends)) - 0.5, Y: 1}})
	if err != nil {
		return nil, err
	}
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(plotter.NewGrid(), bars, errBars, one)
	if i := slices.Index(backends, results.Floor); i >= 0 && ref != results.Floor {
		floor, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: heights[i]}, {X: float64(len(backends)) - 0.5, Y: heights[i]}})
		if err != nil {
			return nil, err
		}
		floor.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
		floor.Color = plotutil.Color(1)
		p.Add(floor)
		p.Y.Label.Text = "ratio to " + ref + " (lower is faster; dotted: floor)"
	}
	p.NominalX(backends...)
	return p, nil
}

// scalingChart draws median sec/op against n on log-log axes, one line
// per backend.
func scalingChart(workload string, set *results.Set, series []*results.Series) (*plot.Plot, error) {
	ws := results.Select(series, results.Query{Workload: workload, Unit: results.SecPerOp, AnyN: true})
	p := plot.New()
	p.Title.Text = workload + ": median sec/op by n"
	p.X.Label.Text = "n"
	p.Y.Label.Text = "time per op"
	logAxes(p, true)
	var lines []any
	for _, b := range results.Backends(ws) {
		var xys plotter.XYs
		for _, n := range results.Sizes(ws) {
			ser := results.Find(ws, workload, b, n, results.SecPerOp)
			if ser == nil {
				continue
			}
			x, y := ser.SizeValue(), set.Summary(ser, confidence).Center
			if x > 0 && y > 0 {
				xys = append(xys, plotter.XY{X: x, Y: y})
			}
		}
		if len(xys) > 0 {
			lines = append(lines, b, xys)
		}
	}
	if len(lines) == 0 {
		return nil, errNoPositive
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return nil, err
	}
	xs, ys := coords(lines)
	logRange(&p.X, xs)
	logRange(&p.Y, ys)
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

// latencyChart draws the latency percentiles of each backend, one line
// per backend over the percentiles, on a log y axis.
func latencyChart(workload string, set *results.Set, series []*results.Series) (*plot.Plot, error) {
	ls := results.Select(series, results.Query{Workload: workload, Latency: true})
	p := plot.New()
	p.Title.Text = workload + ": latency percentiles"
	p.Y.Label.Text = "latency"
	logAxes(p, false)
	var lines []any
	for _, b := range results.Backends(ls) {
		var xys plotter.XYs
		for i, unit := range results.LatencyUnits {
			got := results.Select(ls, results.Query{Workload: workload, Backend: b, Unit: unit, Latency: true})
			if len(got) == 0 {
				continue
			}
			if y := set.Summary(got[0], confidence).Center; y > 0 {
				xys = append(xys, plotter.XY{X: float64(i), Y: y})
			}
		}
		if len(xys) > 0 {
			lines = append(lines, b, xys)
		}
	}
	if len(lines) == 0 {
		return nil, errNoPositive
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return nil, err
	}
	_, ys := coords(lines)
	logRange(&p.Y, ys)
	p.NominalX(results.LatencyLabels...)
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

// logAxes puts the y axis, in seconds (and the x axis if x), on a log
// scale.
func logAxes(p *plot.Plot, x bool) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = secondTicks{plot.LogTicks{Prec: -1}}
	if x {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
}

// logRange sets the range of a log-scale axis to cover vals (all > 0).
// A single value gets a decade around it: gonum would widen an empty
// range by ±1, which can reach 0 and make LogTicks panic.
func logRange(a *plot.Axis, vals []float64) {
	lo, hi := slices.Min(vals), slices.Max(vals)
	if lo == hi {
		lo, hi = lo/math.Sqrt(10), hi*math.Sqrt(10)
	}
	a.Min, a.Max = lo, hi
}

// coords returns the x and y coordinates of the points of lines, an
// alternating sequence of names and plotter.XYs.
func coords(lines []any) (xs, ys []float64) {
	for _, l := range lines {
		if pts, ok := l.(plotter.XYs); ok {
			for _, pt := range pts {
				xs, ys = append(xs, pt.X), append(ys, pt.Y)
			}
		}
	}
	return xs, ys
}

// secondTicks labels the ticks of another marker as durations with SI
// prefixes ("100ns", "1µs").
type secondTicks struct{ plot.Ticker }

// Ticks returns the ticks of the wrapped marker, relabelled.
func (t secondTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := t.Ticker.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = FormatSeconds(ticks[i].Value)
		}
	}
	return ticks
}

// FormatSeconds formats a duration in seconds with an SI prefix and no
// trailing zeros: 1e-6 is "1µs", 2.5e-7 is "250ns".
func FormatSeconds(v float64) string {
	s := benchunit.Scale(v, benchunit.Decimal)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(s)
	}
	num, prefix := s[:i], s[i:]
	if strings.Contains(num, ".") {
		num = strings.TrimRight(strings.TrimRight(num, "0"), ".")
	}
	return num + prefix + "s"
}

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case Ratio:
		return "ratio"
	case Scaling:
		return "scaling"
	case Latency:
		return "latency"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}
