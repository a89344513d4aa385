package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// spreadLegend explains the spread table.
const spreadLegend = `Every kcbench backend against the fastest kcbench backend of each row:
the backend with the lowest median in that row, in this run. A cell is
the paired ratio of the backend's value to the fastest one's (runs of
one round paired, as in the other tables) with its 95% interval; the
fastest backend's cell is "fastest". It shows how far each backend is
from the best the family does on that workload, whatever the peers do.

`

// spread writes the spread table: a row per workload and size and per
// latency workload and percentile (peers or not), a column per kcbench
// backend. Rows with fewer than two backends are left out, and so is the
// whole section when the run has fewer than two.
func (r *renderer) spread() {
	var kept []standingRow
	var all []*results.Series
	for _, row := range r.rows() {
		if len(slices.DeleteFunc(slices.Clone(row.series), isReference)) < 2 {
			continue
		}
		kept = append(kept, row)
		all = append(all, row.series...)
	}
	backends := slices.DeleteFunc(results.Backends(all), results.IsReference)
	if len(backends) < 2 {
		return
	}
	b := &r.b
	b.WriteString("## Backends against the fastest backend\n\n")
	b.WriteString(spreadLegend)
	fmt.Fprintf(b, "| row | fastest | %s |\n", strings.Join(escapeAll(backends), " | "))
	fmt.Fprintf(b, "| :--- | :--- |%s\n", strings.Repeat(" ---: |", len(backends)))
	for _, row := range kept {
		best := r.fastest(row)
		if best == "" {
			continue // no positive median to compare with
		}
		ref := row.of(best)
		cells := make([]string, len(backends))
		for i, be := range backends {
			switch cur := row.of(be); {
			case cur == nil:
				cells[i] = "—"
			case be == best:
				cells[i] = "fastest"
			default:
				cells[i] = r.standingCell(ref, cur, false)
			}
		}
		fmt.Fprintf(b, "| %s | %s %s | %s |\n", escape(row.label), escape(best),
			r.scaled(ref), strings.Join(cells, " | "))
	}
	b.WriteString("\n")
}

// fastest returns the kcbench backend of row with the lowest median, or
// "".
func (r *renderer) fastest(row standingRow) string {
	var backends []string
	for _, s := range row.series {
		if !isReference(s) {
			backends = append(backends, s.Backend)
		}
	}
	return r.lowest(row, backends)
}

// isReference reports whether s is a peer's or the floor's series.
func isReference(s *results.Series) bool { return results.IsReference(s.Backend) }
