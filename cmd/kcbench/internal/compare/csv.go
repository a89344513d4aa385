package compare

import (
	"encoding/csv"
	"fmt"
	"io"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/table"
)

// CSV writes ts as comma-separated values, record for record what
// "benchstat -format csv" writes: configuration lines as one-field
// records, a blank record between tables, centers at full precision.
// Warnings go to warnings, each prefixed with the spreadsheet cell (e.g.
// "C4") it belongs to.
func CSV(w, warnings io.Writer, ts *table.Tables) error {
	o := csv.NewWriter(w)
	row := 1
	for i, t := range ts.Tables {
		if i > 0 {
			if err := o.Write([]string{""}); err != nil {
				return err
			}
			row++
		}
		for _, l := range ts.ConfigChanges(i) {
			if err := o.Write([]string{l.Key + ": " + l.Value}); err != nil {
				return err
			}
			row++
		}
		n, err := csvTable(o, t, row, warnings)
		if err != nil {
			return err
		}
		row += n
	}
	o.Flush()
	return o.Error()
}

// csvStartCol returns the CSV column of table column exp: a label, then
// (center, CI) per column and (vs base, P) after the first.
func csvStartCol(exp int) int {
	if exp == 0 {
		return 1
	}
	return 1 + 2 + (exp-1)*4
}

// csvTable writes one table starting at spreadsheet row startRow and
// returns the number of records written.
func csvTable(o *csv.Writer, t *table.Table, startRow int, warnings io.Writer) (int, error) {
	var rec []string
	count := 0
	clearTo := func(col int) {
		for len(rec) < col {
			rec = append(rec, "")
		}
	}
	emit := func() error {
		err := o.Write(rec)
		rec = rec[:0]
		count++
		return err
	}
	warn := func(errs []error) {
		for _, err := range errs {
			fmt.Fprintf(warnings, "%s%d: %s\n", cellName(len(rec)), startRow+count, err)
		}
	}

	for _, f := range t.Cols[0].Projection().FlattenedFields() {
		for exp, key := range t.Cols {
			clearTo(csvStartCol(exp))
			rec = append(rec, key.Get(f))
		}
		clearTo(csvStartCol(len(t.Cols)))
		if err := emit(); err != nil {
			return count, err
		}
	}
	for exp := range t.Cols {
		clearTo(csvStartCol(exp))
		rec = append(rec, t.Unit, "CI")
		if exp > 0 {
			rec = append(rec, "vs base", "P")
		}
	}
	if err := emit(); err != nil {
		return count, err
	}
	for _, row := range t.Rows {
		rec = append(rec, row.StringValues())
		for exp, col := range t.Cols {
			c, ok := t.Cells[table.Key{Row: row, Col: col}]
			if !ok {
				continue
			}
			clearTo(csvStartCol(exp))
			warn(c.Sample.Warnings)
			warn(c.Summary.Warnings)
			rec = append(rec, fmt.Sprint(c.Summary.Center), c.Summary.PctRangeString())
			if exp > 0 && c.Baseline != nil {
				warn(c.Comparison.Warnings)
				rec = append(rec, c.Delta(), c.Comparison.String())
			}
		}
		if err := emit(); err != nil {
			return count, err
		}
	}
	rec = append(rec, t.SummaryLabel)
	for exp, col := range t.Cols {
		s, ok := t.Summary[col]
		if !ok {
			continue
		}
		clearTo(csvStartCol(exp))
		warn(s.Warnings)
		if s.HasSummary {
			rec = append(rec, fmt.Sprint(s.Summary))
		}
		if exp > 0 {
			clearTo(csvStartCol(exp) + 2)
			if s.HasRatio {
				rec = append(rec, table.FormatRatio(s.Ratio))
			} else {
				rec = append(rec, "?")
			}
		}
	}
	clearTo(csvStartCol(len(t.Cols)))
	return count, emit()
}

// cellName returns the spreadsheet name of zero-based column x, the way
// benchstat computes it (including its quirk of numbering from "A" for
// column 1).
func cellName(x int) string {
	if x == 0 {
		return "A"
	}
	var name []byte
	for ; x > 0; x /= 26 {
		name = append([]byte{'A' + byte(x%26)}, name...)
	}
	return string(name)
}
