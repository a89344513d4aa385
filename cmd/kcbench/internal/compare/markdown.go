package compare

import (
	"fmt"
	"io"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/table"
)

// Markdown writes ts as GitHub-flavoured Markdown: per table, its
// configuration as a list, then one column per table column (center ±
// CI) and one "vs base" column per compared column, then the footnotes.
func Markdown(w io.Writer, ts *table.Tables) error {
	var b strings.Builder
	for i, t := range ts.Tables {
		if i > 0 {
			b.WriteString("\n")
		}
		for _, l := range ts.ConfigChanges(i) {
			fmt.Fprintf(&b, "- %s: %s\n", l.Key, mdEscape(l.Value))
		}
		if len(ts.ConfigChanges(i)) > 0 {
			b.WriteString("\n")
		}
		markdownTable(&b, t)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownTable writes one table.
func markdownTable(b *strings.Builder, t *table.Table) {
	var notes footnotes
	head := []string{t.Unit}
	align := []string{":---"}
	for i, col := range t.Cols {
		head = append(head, mdEscape(col.StringValues()))
		align = append(align, "---:")
		if i > 0 {
			head = append(head, "vs base")
			align = append(align, "---:")
		}
	}
	mdRow(b, head)
	mdRow(b, align)
	for _, row := range t.Rows {
		cells := []string{mdEscape(row.StringValues())}
		scaler := t.RowScaler(row)
		for exp, col := range t.Cols {
			c, ok := t.Cells[table.Key{Row: row, Col: col}]
			switch {
			case !ok:
				cells = append(cells, "")
			default:
				v := scaler.Format(c.Summary.Center) + " ± " + c.Summary.PctRangeString()
				cells = append(cells, withMarks(v, notes.marks(c.Sample.Warnings, c.Summary.Warnings)))
			}
			if exp == 0 {
				continue
			}
			if !ok || c.Baseline == nil {
				cells = append(cells, "")
				continue
			}
			v := c.Delta() + " (" + c.Comparison.String() + ")"
			cells = append(cells, withMarks(v, notes.marks(c.Comparison.Warnings)))
		}
		mdRow(b, cells)
	}
	if len(t.Rows) > 1 {
		cells := []string{"*" + t.SummaryLabel + "*"}
		class := benchunit.ClassOf(t.Unit)
		for exp, col := range t.Cols {
			s := t.Summary[col]
			v := ""
			if s.HasSummary {
				v = benchunit.Scale(s.Summary, class)
			}
			ratio := ""
			if exp > 0 {
				ratio = "?"
				if s.HasRatio {
					ratio = table.FormatRatio(s.Ratio)
				}
			}
			marks := notes.marks(s.Warnings)
			if exp == 0 {
				cells = append(cells, withMarks(v, marks))
			} else {
				cells = append(cells, v, withMarks(ratio, marks))
			}
		}
		mdRow(b, cells)
	}
	if len(notes.list) > 0 {
		b.WriteString("\n")
		for i, msg := range notes.list {
			fmt.Fprintf(b, "%s %s  \n", superscript(i+1), mdEscape(msg))
		}
	}
}

// withMarks appends footnote marks to v.
func withMarks(v, marks string) string {
	if marks == "" {
		return v
	}
	return v + " " + marks
}

// mdRow writes one table row.
func mdRow(b *strings.Builder, cells []string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// mdEscape escapes the characters that would break a Markdown table
// cell or be read as emphasis.
var mdEscape = strings.NewReplacer(`|`, `\|`, `*`, `\*`, `_`, `\_`).Replace
