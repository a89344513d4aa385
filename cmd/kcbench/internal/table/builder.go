// Package table groups benchmark results into comparison tables and
// computes their statistics: the statistics layer of "kcbench compare",
// between benchfmt (format) and internal/compare (presentation).
//
// It follows golang.org/x/perf/cmd/benchstat (whose internal benchtab
// package cannot be imported) step by step, so that the numbers are
// benchstat's: results are projected with benchproc into tables (one per
// unit and file configuration), rows and columns; every cell is a
// benchmath.Sample summarized under the unit's assumption (median and
// confidence interval by default) and compared with the cell of the
// first column in its row (Mann-Whitney U test by default); the last row
// of each table is the geometric mean of each column.
package table

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// ErrNoUnitField reports a table projection without a ".unit" field
// (one not made with ProjectionParser.ParseWithUnit).
var ErrNoUnitField = errors.New("table projection has no .unit field")

// A Builder collects benchmark results into tables.
type Builder struct {
	tableBy, rowBy, colBy *benchproc.Projection
	residue               *benchproc.Projection
	unitField             *benchproc.Field
	tables                map[benchproc.Key]*builderTable
}

// builderTable is one table being built.
type builderTable struct {
	rows, cols map[benchproc.Key]struct{}
	cells      map[Key]*builderCell
}

// builderCell is one cell being built: its values, and the residue
// keys mapped to it (to warn about results that differ in a dimension
// the projections hide).
type builderCell struct {
	values  []float64
	residue map[benchproc.Key]struct{}
}

// Key indexes a cell of a Table.
type Key struct {
	Row, Col benchproc.Key
}

// NewBuilder returns a Builder that maps each result value to a table by
// tableBy (which must end with the ".unit" field of ParseWithUnit), and
// to a cell by rowBy and colBy. Values in one cell that differ in
// residue produce a warning.
func NewBuilder(tableBy, rowBy, colBy, residue *benchproc.Projection) (*Builder, error) {
	fields := tableBy.Fields()
	if len(fields) == 0 || fields[len(fields)-1].Name != ".unit" {
		return nil, ErrNoUnitField
	}
	return &Builder{
		tableBy: tableBy, rowBy: rowBy, colBy: colBy, residue: residue,
		unitField: fields[len(fields)-1],
		tables:    make(map[benchproc.Key]*builderTable),
	}, nil
}

// Add adds every value of result to its table cell.
func (b *Builder) Add(result *benchfmt.Result) {
	tableKeys := b.tableBy.ProjectValues(result)
	rowKey := b.rowBy.Project(result)
	colKey := b.colBy.Project(result)
	residueKey := b.residue.Project(result)
	cellKey := Key{rowKey, colKey}
	for i, tableKey := range tableKeys {
		t := b.tables[tableKey]
		if t == nil {
			t = &builderTable{
				rows:  make(map[benchproc.Key]struct{}),
				cols:  make(map[benchproc.Key]struct{}),
				cells: make(map[Key]*builderCell),
			}
			b.tables[tableKey] = t
		}
		c := t.cells[cellKey]
		if c == nil {
			c = &builderCell{residue: make(map[benchproc.Key]struct{})}
			t.cells[cellKey] = c
			t.rows[rowKey] = struct{}{}
			t.cols[colKey] = struct{}{}
		}
		c.values = append(c.values, result.Values[i].Value)
		c.residue[residueKey] = struct{}{}
	}
}

// Options configures Builder.Tables.
type Options struct {
	// Confidence is the confidence level of summary intervals, e.g.
	// 0.95.
	Confidence float64
	// Thresholds are the thresholds of the statistical tests.
	Thresholds *benchmath.Thresholds
	// Units is the unit metadata, which gives each unit's assumption.
	Units benchfmt.UnitMetadataMap
}

// Tables computes the statistics of every table, sorted by table key.
func (b *Builder) Tables(opts Options) *Tables {
	keys := sortedKeys(b.tables)
	out := &Tables{Keys: keys}
	for _, k := range keys {
		bt := b.tables[k]
		unit := k.Get(b.unitField)
		t := &Table{
			Unit:         unit,
			Assumption:   opts.Units.GetAssumption(unit),
			Opts:         opts,
			Rows:         sortedKeys(bt.rows),
			Cols:         sortedKeys(bt.cols),
			Cells:        make(map[Key]*Cell, len(bt.cells)),
			SummaryLabel: "geomean",
		}
		for ck, bc := range bt.cells {
			t.Cells[ck] = &Cell{Sample: benchmath.NewSample(bc.values, opts.Thresholds)}
		}
		base := t.Cols[0]
		for ck, bc := range bt.cells {
			c := t.Cells[ck]
			if ck.Col != base {
				c.Baseline = t.Cells[Key{ck.Row, base}]
			}
			summarizeCell(bc, c, t.Assumption, opts.Confidence)
		}
		t.summarize()
		out.Tables = append(out.Tables, t)
	}
	return out
}

// summarizeCell fills in c's summary, its comparison with its baseline
// and a warning when its results vary in a hidden dimension.
func summarizeCell(bc *builderCell, c *Cell, a benchmath.Assumption, confidence float64) {
	c.Summary = a.Summary(c.Sample, confidence)
	if c.Baseline != nil {
		c.Comparison = a.Compare(c.Baseline.Sample, c.Sample)
	}
	fields := benchproc.NonSingularFields(sortedKeys(bc.residue))
	if len(fields) == 0 {
		return
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	c.Sample.Warnings = append(c.Sample.Warnings,
		fmt.Errorf("benchmarks vary in %s", strings.Join(names, ", ")))
}

// sortedKeys returns the keys of m in projection order.
func sortedKeys[V any](m map[benchproc.Key]V) []benchproc.Key {
	keys := make([]benchproc.Key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	benchproc.SortKeys(keys)
	return keys
}
