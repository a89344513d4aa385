// Package compare renders comparison tables (internal/table) as text,
// Markdown, CSV or JSON: the presentation layer of "kcbench compare".
//
// The text and CSV renderings carry the same values, in the same order
// and with the same formatting functions (benchunit scaling, benchmath's
// PctRangeString, FormatDelta and Comparison.String) as benchstat's, so
// that the output reads exactly like benchstat's: the text form differs
// from it only in spacing, and the CSV form not at all.
package compare

import (
	"errors"
	"fmt"
	"io"

	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/table"
)

// ErrUnknownFormat reports a format name that Render does not know.
var ErrUnknownFormat = errors.New("unknown format")

// Formats lists the formats Render accepts.
var Formats = []string{"text", "markdown", "csv", "json"}

// Render writes ts to w in format ("text", "markdown", "csv" or "json").
// The CSV format writes its warnings to warnings, with spreadsheet cell
// references; the others embed them.
func Render(w, warnings io.Writer, ts *table.Tables, format string) error {
	switch format {
	case "text":
		return Text(w, ts)
	case "markdown":
		return Markdown(w, ts)
	case "csv":
		return CSV(w, warnings, ts)
	case "json":
		return JSON(w, ts)
	}
	return fmt.Errorf("%w %q (want text, markdown, csv or json)", ErrUnknownFormat, format)
}

// Text writes ts as fixed-width text tables, each preceded by the file
// configuration lines that changed since the previous one.
func Text(w io.Writer, ts *table.Tables) error {
	for i, t := range ts.Tables {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		for _, l := range ts.ConfigChanges(i) {
			if _, err := fmt.Fprintf(w, "%s: %s\n", l.Key, l.Value); err != nil {
				return err
			}
		}
		if err := textTable(w, t); err != nil {
			return err
		}
	}
	return nil
}

// Column groups of the text layout: a label column, then for every
// table column a center group (center, CI, warnings) and, after the
// first, a delta group (delta, "(p=... n=...)", warnings).
const (
	labelCols  = 1
	centerCols = 3
	deltaCols  = 3
)

// startCol returns the grid column of table column exp's center group.
func startCol(exp int) int {
	if exp == 0 {
		return labelCols
	}
	return labelCols + centerCols + (exp-1)*(centerCols+deltaCols)
}

// textTable writes one table.
func textTable(w io.Writer, t *table.Table) error {
	var g grid
	var notes footnotes
	edge := startCol(len(t.Cols) + 1)
	header := benchproc.NewKeyHeader(t.Cols)
	for nodes := header.Top; len(nodes) > 0; {
		var next []*benchproc.KeyHeaderNode
		g.row()
		for _, n := range nodes {
			l, r := startCol(n.Start), startCol(n.Start+n.Len)
			g.add(gridCell{col: l, span: r - l, text: n.Value, margin: " │ ", align: center})
			next = append(next, n.Children...)
		}
		g.add(gridCell{col: edge, margin: " │"})
		nodes = next
	}
	g.row()
	for i := range t.Cols {
		g.add(gridCell{col: startCol(i), span: centerCols, text: t.Unit, margin: " │ ", align: center})
		if i > 0 {
			g.add(gridCell{col: startCol(i) + centerCols, span: deltaCols, text: "vs base", margin: "  "})
		}
	}
	g.add(gridCell{col: edge, margin: " │"})

	for _, row := range t.Rows {
		g.row()
		g.add(gridCell{col: 0, text: row.StringValues()})
		scaler := t.RowScaler(row)
		for exp, col := range t.Cols {
			c, ok := t.Cells[table.Key{Row: row, Col: col}]
			if !ok {
				continue
			}
			s := startCol(exp)
			g.add(gridCell{col: s, text: scaler.Format(c.Summary.Center), margin: " ", align: right})
			g.add(gridCell{col: s + 1, text: c.Summary.PctRangeString(), margin: " ± ", align: right})
			g.add(gridCell{col: s + 2, text: notes.marks(c.Sample.Warnings, c.Summary.Warnings), margin: " "})
			if exp > 0 && c.Baseline != nil {
				g.add(gridCell{col: s + 3, text: c.Delta(), margin: " ", align: right})
				g.add(gridCell{col: s + 4, text: "(" + c.Comparison.String() + ")", margin: " "})
				g.add(gridCell{col: s + 5, text: notes.marks(c.Comparison.Warnings), margin: " "})
			}
		}
	}
	if len(t.Rows) > 1 {
		summaryRow(&g, &notes, t)
	}
	if err := g.write(w); err != nil {
		return err
	}
	for i, msg := range notes.list {
		if _, err := fmt.Fprintf(w, "%s %s\n", superscript(i+1), msg); err != nil {
			return err
		}
	}
	return nil
}

// summaryRow adds the geomean row.
func summaryRow(g *grid, notes *footnotes, t *table.Table) {
	g.row()
	g.add(gridCell{col: 0, text: t.SummaryLabel})
	class := benchunit.ClassOf(t.Unit)
	for exp, col := range t.Cols {
		s, ok := t.Summary[col]
		if !ok {
			continue
		}
		if s.HasSummary {
			g.add(gridCell{col: startCol(exp), text: benchunit.Scale(s.Summary, class), margin: " ", align: right})
		}
		if exp > 0 {
			ratio := "?"
			if s.HasRatio {
				ratio = table.FormatRatio(s.Ratio)
			}
			g.add(gridCell{col: startCol(exp) + centerCols, text: ratio, margin: " ", align: right})
		}
		g.add(gridCell{col: startCol(exp+1) - 1, text: notes.marks(s.Warnings), margin: " "})
	}
}
