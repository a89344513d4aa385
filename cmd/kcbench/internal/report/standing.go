package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// standingLegend explains the standing table.
const standingLegend = `Every kcbench backend against the best peer of each row: the peer with
the lowest median in that row, in this run. A cell is the paired ratio
of the backend's value to that peer's (runs of one round paired, as in
the workload tables) with its 95% interval, marked ✅ when the whole
interval lies at or below 1 (ahead of every peer), ❌ when it lies above 1
(behind the best peer), and ≈ when it straddles 1 (no difference this run
can show). "floor" is the floor's ratio to the same peer: where it is
near or above 1, no runtime that does the workload's irreducible work can
be ahead of that peer on this machine. Latency rows do the same for one
percentile, paired by round as well (each round samples every backend).

`

// A standingRow is one row of the standing table: a workload (and size,
// or a latency percentile) with its peers, backends and floor.
type standingRow struct {
	label  string
	series []*results.Series // one unit, one per backend, in file order
}

// of returns the series of backend in row, or nil.
func (row standingRow) of(backend string) *results.Series {
	for _, s := range row.series {
		if s.Backend == backend {
			return s
		}
	}
	return nil
}

// standing writes the standing table: a row per workload and size and
// per latency workload and percentile, a column per kcbench backend.
// Rows without a peer are left out, and so is the whole section when no
// row has one.
func (r *renderer) standing() {
	rows := r.rows()
	var all []*results.Series
	kept := rows[:0]
	for _, row := range rows {
		if r.bestPeer(row) == "" {
			continue
		}
		kept = append(kept, row)
		all = append(all, row.series...)
	}
	backends := slices.DeleteFunc(results.Backends(all), results.IsReference)
	if len(backends) == 0 {
		return
	}
	b := &r.b
	b.WriteString("## Standing against the best peer\n\n")
	b.WriteString(standingLegend)
	fmt.Fprintf(b, "| row | best peer | %s | floor |\n", strings.Join(escapeAll(backends), " | "))
	fmt.Fprintf(b, "| :--- | :--- |%s ---: |\n", strings.Repeat(" ---: |", len(backends)))
	for _, row := range kept {
		peer := r.bestPeer(row)
		ref := row.of(peer)
		cells := make([]string, 0, len(backends)+1)
		for _, be := range append(backends, results.Floor) {
			cur := row.of(be)
			if cur == nil {
				cells = append(cells, "—")
				continue
			}
			cells = append(cells, r.standingCell(ref, cur, be != results.Floor))
		}
		fmt.Fprintf(b, "| %s | %s %s | %s |\n", escape(row.label), escape(peer),
			r.scaled(ref), strings.Join(cells, " | "))
	}
	b.WriteString("\n")
}

// rows returns a standing row per workload and size, then per latency
// workload and percentile, in the order of the results.
func (r *renderer) rows() []standingRow {
	var rows []standingRow
	for _, wl := range results.Workloads(r.series) {
		ws := results.Select(r.series, results.Query{Workload: wl, Unit: results.SecPerOp, AnyN: true})
		sizes := results.Sizes(ws)
		if len(sizes) == 0 {
			sizes = []string{""}
		}
		for _, n := range sizes {
			label := wl
			if n != "" {
				label += "/n=" + n
			}
			rows = append(rows, standingRow{label, results.Select(ws, results.Query{Workload: wl, N: n, Unit: results.SecPerOp})})
		}
	}
	for _, wl := range latencyWorkloads(r.series) {
		for i, u := range results.LatencyUnits {
			ls := results.Select(r.series, results.Query{Workload: wl, Unit: u, Latency: true})
			rows = append(rows, standingRow{"latency " + wl + " " + results.LatencyLabels[i], ls})
		}
	}
	return rows
}

// bestPeer returns the peer of row with the lowest median, or "".
func (r *renderer) bestPeer(row standingRow) string { return r.lowest(row, results.Peers) }

// lowest returns the one of backends (the first, on a tie) whose series
// in row has the lowest positive median, or "" if none has one.
func (r *renderer) lowest(row standingRow, backends []string) string {
	best, bestV := "", math.Inf(1)
	for _, be := range backends {
		if s := row.of(be); s != nil {
			if v := r.set.Summary(s, confidence).Center; v > 0 && v < bestV {
				best, bestV = be, v
			}
		}
	}
	return best
}

// standingCell formats the paired ratio of cur to ref with its interval
// and, when marked, the verdict of the interval; with too few rounds,
// the ratio of the medians marked with the number of pairs.
func (r *renderer) standingCell(ref, cur *results.Series, marked bool) string {
	pairs := pairsByRound(ref, cur)
	e, err := paired.Analyze(pairs, confidence, rowAlpha)
	if err != nil {
		ratio := r.set.Summary(cur, confidence).Center / r.set.Summary(ref, confidence).Center
		return fmt.Sprintf("%.2f× (n=%d)", ratio, len(pairs))
	}
	cell := fmt.Sprintf("%.2f× (%.2f–%s)", e.Ratio, e.Lo, upper(e.Hi))
	if !marked {
		return cell
	}
	switch {
	case e.Hi <= 1:
		return "✅ " + cell
	case e.Lo > 1:
		return "❌ " + cell
	}
	return "≈ " + cell
}

// scaled formats the median of s in seconds.
func (r *renderer) scaled(s *results.Series) string {
	return seconds(r.set.Summary(s, confidence).Center)
}

// latencyWorkloads returns the workloads with latency lines, in order of
// appearance.
func latencyWorkloads(series []*results.Series) []string {
	var out []string
	for _, s := range series {
		if s.Latency && !slices.Contains(out, s.Workload) {
			out = append(out, s.Workload)
		}
	}
	return out
}

func escapeAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = escape(x)
	}
	return out
}
