package compare

import (
	"encoding/json"
	"io"
	"math"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/table"
)

// JSONOutput is the document written by JSON. Values are in the tidied
// unit of their table (seconds, bytes), unscaled.
type JSONOutput struct {
	Tables []JSONTable `json:"tables"`
}

// JSONTable is one table.
type JSONTable struct {
	// Config is the table's file configuration, in field order.
	Config []table.ConfigLine `json:"config"`
	// Unit is the unit of every value ("sec/op").
	Unit string `json:"unit"`
	// Statistic is the summary statistic ("median").
	Statistic string `json:"statistic"`
	// Confidence is the requested confidence level of intervals.
	Confidence float64 `json:"confidence"`
	// Alpha is the significance level of comparisons.
	Alpha float64 `json:"alpha"`
	// Columns are the column labels; the first is the baseline.
	Columns []string  `json:"columns"`
	Rows    []JSONRow `json:"rows"`
	// Summary is the geomean row, one entry per column.
	Summary []JSONSummary `json:"summary"`
}

// JSONRow is one row: its label and its cells, absent cells omitted.
type JSONRow struct {
	Name  string     `json:"name"`
	Cells []JSONCell `json:"cells"`
}

// JSONCell is one cell. Lo and Hi are null when the interval is
// unbounded (too few samples).
type JSONCell struct {
	Column   string          `json:"column"`
	Center   float64         `json:"center"`
	Lo       *float64        `json:"lo"`
	Hi       *float64        `json:"hi"`
	Range    string          `json:"range"`
	N        int             `json:"n"`
	VsBase   *JSONComparison `json:"vs_base,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
}

// JSONComparison compares a cell with the baseline cell of its row.
type JSONComparison struct {
	// Delta is benchstat's delta: "+12.34%", or "~" if not
	// significant.
	Delta string `json:"delta"`
	// Ratio is center / baseline center (null when the baseline is 0).
	Ratio       *float64 `json:"ratio"`
	P           float64  `json:"p"`
	N1          int      `json:"n1"`
	N2          int      `json:"n2"`
	Significant bool     `json:"significant"`
	Warnings    []string `json:"warnings,omitempty"`
}

// JSONSummary is the geomean of one column.
type JSONSummary struct {
	Column   string   `json:"column"`
	Geomean  *float64 `json:"geomean"`
	Ratio    *float64 `json:"ratio,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// JSON writes ts as an indented JSONOutput document.
func JSON(w io.Writer, ts *table.Tables) error {
	out := JSONOutput{Tables: []JSONTable{}}
	for i, t := range ts.Tables {
		jt := JSONTable{
			Config:     ts.Config(i),
			Unit:       t.Unit,
			Statistic:  t.Assumption.SummaryLabel(),
			Confidence: t.Opts.Confidence,
			Alpha:      t.Opts.Thresholds.CompareAlpha,
			Rows:       []JSONRow{},
		}
		for _, col := range t.Cols {
			jt.Columns = append(jt.Columns, col.StringValues())
		}
		for _, row := range t.Rows {
			jr := JSONRow{Name: row.StringValues(), Cells: []JSONCell{}}
			for _, col := range t.Cols {
				if c, ok := t.Cells[table.Key{Row: row, Col: col}]; ok {
					jr.Cells = append(jr.Cells, jsonCell(col.StringValues(), c))
				}
			}
			jt.Rows = append(jt.Rows, jr)
		}
		for i, col := range t.Cols {
			s := t.Summary[col]
			js := JSONSummary{Column: col.StringValues(), Warnings: messages(s.Warnings)}
			if s.HasSummary {
				js.Geomean = finite(s.Summary)
			}
			if i > 0 && s.HasRatio {
				js.Ratio = finite(s.Ratio)
			}
			jt.Summary = append(jt.Summary, js)
		}
		out.Tables = append(out.Tables, jt)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// jsonCell converts one cell.
func jsonCell(col string, c *table.Cell) JSONCell {
	jc := JSONCell{
		Column:   col,
		Center:   c.Summary.Center,
		Lo:       finite(c.Summary.Lo),
		Hi:       finite(c.Summary.Hi),
		Range:    c.Summary.PctRangeString(),
		N:        len(c.Sample.Values),
		Warnings: messages(c.Sample.Warnings, c.Summary.Warnings),
	}
	if c.Baseline != nil {
		cmp := c.Comparison
		jc.VsBase = &JSONComparison{
			Delta:       c.Delta(),
			P:           cmp.P,
			N1:          cmp.N1,
			N2:          cmp.N2,
			Significant: cmp.P <= cmp.Alpha,
			Warnings:    messages(cmp.Warnings),
		}
		if base := c.Baseline.Summary.Center; base != 0 {
			jc.VsBase.Ratio = finite(c.Summary.Center / base)
		}
	}
	return jc
}

// finite returns &v, or nil when v is infinite or NaN (which JSON
// cannot represent).
func finite(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}

// messages returns the messages of errs.
func messages(errs ...[]error) []string {
	var out []string
	for _, list := range errs {
		for _, err := range list {
			out = append(out, err.Error())
		}
	}
	return out
}
