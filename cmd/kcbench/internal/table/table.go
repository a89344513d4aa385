package table

import (
	"errors"
	"fmt"
	"math"

	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"
)

// Tables is a sequence of tables, each with its key (file configuration
// and unit).
type Tables struct {
	// Tables are the tables, sorted by key.
	Tables []*Table
	// Keys are the table keys, one per table. Each ends with the
	// ".unit" field.
	Keys []benchproc.Key
}

// A Table compares the samples of its rows across its columns: every
// cell is compared with the cell of the first column in its row.
type Table struct {
	// Unit is the unit of every value in the table.
	Unit string
	// Assumption is the unit's distributional assumption.
	Assumption benchmath.Assumption
	// Opts are the options the table was computed with.
	Opts Options
	// Rows and Cols are the row and column keys, sorted.
	Rows, Cols []benchproc.Key
	// Cells holds the cells that have values; a (row, col) pair may
	// be missing.
	Cells map[Key]*Cell
	// Summary is the summary row, by column key.
	Summary map[benchproc.Key]*ColSummary
	// SummaryLabel labels the summary row ("geomean").
	SummaryLabel string
}

// A Cell is the sample of one row and column.
type Cell struct {
	// Sample holds the values, sorted.
	Sample *benchmath.Sample
	// Summary is the center and confidence interval of Sample.
	Summary benchmath.Summary
	// Baseline is the first-column cell of the row, or nil in the
	// first column and where that cell is missing.
	Baseline *Cell
	// Comparison compares Baseline with this cell; meaningless when
	// Baseline is nil.
	Comparison benchmath.Comparison
}

// A ColSummary is the summary row's cell of one column.
type ColSummary struct {
	// HasSummary says that Summary, the geometric mean of the
	// column's centers, is valid.
	HasSummary bool
	Summary    float64
	// HasRatio says that Ratio, the geometric mean of the ratios of
	// the column's centers to their baselines, is valid.
	HasRatio bool
	Ratio    float64
	// Warnings explain a missing summary or ratio.
	Warnings []error
}

// Warnings about summary rows, in benchstat's words.
var (
	errSetDiffers  = errors.New("benchmark set differs from baseline; geomeans may not be comparable")
	errSummaryZero = errors.New("summaries must be >0 to compute geomean")
	errRatioZero   = errors.New("ratios must be >0 to compute geomean")
)

// summarize computes the summary row: for every column, the geometric
// mean of its centers and of its ratios to the baseline column.
func (t *Table) summarize() {
	t.Summary = make(map[benchproc.Key]*ColSummary, len(t.Cols))
	nBase := 0
	for _, row := range t.Rows {
		if _, ok := t.Cells[Key{row, t.Cols[0]}]; ok {
			nBase++
		}
	}
	for i, col := range t.Cols {
		t.Summary[col] = t.summarizeCol(col, nBase, i == 0)
	}
}

// summarizeCol summarizes one column; see benchstat's summarizeCol.
func (t *Table) summarizeCol(col benchproc.Key, nBase int, isBase bool) *ColSummary {
	s := new(ColSummary)
	var centers, ratios []float64
	badRatio := false
	for _, row := range t.Rows {
		c, ok := t.Cells[Key{row, col}]
		if !ok {
			continue
		}
		centers = append(centers, c.Summary.Center)
		if c.Baseline == nil {
			continue
		}
		a, b := c.Summary.Center, c.Baseline.Summary.Center
		switch {
		case a == b:
			ratios = append(ratios, 1) // 0/0 counts as 1
		case b == 0:
			badRatio = true
			ratios = append(ratios, 0)
		default:
			ratios = append(ratios, a/b)
		}
	}
	if !isBase && nBase != len(ratios) {
		s.Warnings = append(s.Warnings, errSetDiffers)
	}
	if gm := GeoMean(centers); math.IsNaN(gm) {
		s.Warnings = append(s.Warnings, errSummaryZero)
	} else {
		s.HasSummary, s.Summary = true, gm
	}
	if !isBase && !badRatio {
		if gm := GeoMean(ratios); math.IsNaN(gm) {
			s.Warnings = append(s.Warnings, errRatioZero)
		} else {
			s.HasRatio, s.Ratio = true, gm
		}
	}
	return s
}

// GeoMean returns the geometric mean of xs, or NaN when xs is empty or
// holds a value <= 0. It is computed as a running mean of logarithms,
// the algorithm of go-moremath's stats.GeoMean that benchstat uses, so
// the geomean row matches benchstat's to the last bit (montanaflynn's
// GeometricMean multiplies the values first and can differ in rounding).
func GeoMean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	m := 0.0
	for i, x := range xs {
		if x <= 0 {
			return math.NaN()
		}
		m += (math.Log(x) - m) / float64(i+1)
	}
	return math.Exp(m)
}

// RowScaler returns the scaler that formats every center of row with a
// common SI or binary prefix.
func (t *Table) RowScaler(row benchproc.Key) benchunit.Scaler {
	var centers []float64
	for _, col := range t.Cols {
		if c, ok := t.Cells[Key{row, col}]; ok {
			centers = append(centers, c.Summary.Center)
		}
	}
	return benchunit.CommonScale(centers, benchunit.ClassOf(t.Unit))
}

// Delta formats c's change from its baseline as benchstat does:
// "+12.34%", or "~" when the comparison is not significant.
func (c *Cell) Delta() string {
	if c.Baseline == nil {
		return ""
	}
	return c.Comparison.FormatDelta(c.Baseline.Summary.Center, c.Summary.Center)
}

// FormatRatio formats a summary ratio as a percent change ("+1.23%").
func FormatRatio(r float64) string {
	return fmt.Sprintf("%+.2f%%", (r-1)*100)
}

// A ConfigLine is a "key: value" line printed before a table whose file
// configuration differs from the previous table's.
type ConfigLine struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// ConfigChanges returns, for table i, the configuration lines that
// precede it: every field of its key except ".unit" whose value differs
// from table i-1 (all of them for the first table).
func (ts *Tables) ConfigChanges(i int) []ConfigLine {
	fields := ts.Keys[0].Projection().FlattenedFields()
	var lines []ConfigLine
	for _, f := range fields {
		if f.Name == ".unit" {
			continue
		}
		v := ts.Keys[i].Get(f)
		if i == 0 || v != ts.Keys[i-1].Get(f) {
			lines = append(lines, ConfigLine{f.Name, v})
		}
	}
	return lines
}

// Config returns every configuration field of table i's key except
// ".unit", in field order.
func (ts *Tables) Config(i int) []ConfigLine {
	var lines []ConfigLine
	for _, f := range ts.Keys[i].Projection().FlattenedFields() {
		if f.Name != ".unit" {
			lines = append(lines, ConfigLine{f.Name, ts.Keys[i].Get(f)})
		}
	}
	return lines
}
