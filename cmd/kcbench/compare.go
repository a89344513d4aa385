package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/compare"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/table"
)

// ErrNoMatch reports that -filter left no benchmark results.
var ErrNoMatch = errors.New("no benchmark results match the filter")

func init() {
	register(&command{
		name:     "compare",
		synopsis: "[flags] files...",
		summary:  "compare benchmark results like benchstat",
		doc: `Compare summarizes and compares benchmark results exactly as benchstat
does (golang.org/x/perf/cmd/benchstat): each cell shows the median and
its confidence interval; every column after the first is compared with
the first by a Mann-Whitney U test and shows the change of the median,
or "~" when the change is not significant at -alpha, with the p-value
and the sample sizes; the last row is the geometric mean of each column.

-table, -row, -col, -ignore and -filter take benchstat's projection and
filter syntax (go doc golang.org/x/perf/benchproc/syntax). -col defaults
to .file when several files are given (A/B comparison) and to /backend
for a single file (backends side by side); use
-col "/backend@(peer-go stealing vcore)" to choose the baseline column
and order. A file may be given as label=path to label its column.`,
		run: runCompare,
	})
}

// compareOptions are the parsed flags of compare.
type compareOptions struct {
	format, tableBy, rowBy, colBy, ignore, filter string
	confidence                                    float64
	thresholds                                    benchmath.Thresholds
}

// runCompare implements "kcbench compare".
func runCompare(stdout, stderr io.Writer, args []string) error {
	c, _ := lookup("compare")
	fs := c.flagSet(stderr)
	o := compareOptions{thresholds: benchmath.DefaultThresholds}
	fs.StringVar(&o.format, "format", "text", "output `format`: text, markdown, csv (warnings to stderr) or json")
	fs.StringVar(&o.tableBy, "table", ".config", "split results into tables by distinct values of `projection`")
	fs.StringVar(&o.rowBy, "row", ".fullname", "split results into rows by distinct values of `projection`")
	fs.StringVar(&o.colBy, "col", "", "split results into columns by distinct values of `projection` (default .file for several files, /backend for one)")
	fs.StringVar(&o.ignore, "ignore", "", "ignore variations in `keys`")
	fs.StringVar(&o.filter, "filter", "*", "use only benchmarks matching benchfilter `query`")
	fs.Float64Var(&o.thresholds.CompareAlpha, "alpha", o.thresholds.CompareAlpha, "consider a change significant if p <= `α`")
	fs.Float64Var(&o.confidence, "confidence", 0.95, "confidence `level` of the intervals")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageError("compare needs at least one results file")
	}
	if o.colBy == "" {
		o.colBy = "/backend"
		if fs.NArg() > 1 {
			o.colBy = ".file"
		}
	}
	if err := o.validate(); err != nil {
		return err
	}
	set, err := loadResults(stderr, fs.Args()...)
	if err != nil {
		return err
	}
	ts, err := buildTables(stderr, set, o)
	if err != nil {
		return err
	}
	return compare.Render(stdout, stderr, ts, o.format)
}

// validate checks the flag values that do not need the input.
func (o *compareOptions) validate() error {
	a, c := o.thresholds.CompareAlpha, o.confidence
	if err := checkBounds(
		bound{"alpha", a, a >= 0 && a <= 1, "a level in [0, 1]"},
		bound{"confidence", c, c >= 0 && c <= 1, "a level in [0, 1]"},
	); err != nil {
		return err
	}
	if !slices.Contains(compare.Formats, o.format) {
		return usageError("-format %q: want one of %s", o.format, strings.Join(compare.Formats, ", "))
	}
	return nil
}

// buildTables projects and filters the results of set into comparison
// tables, following benchstat's main step by step.
func buildTables(stderr io.Writer, set *results.Set, o compareOptions) (*table.Tables, error) {
	filter, err := benchproc.NewFilter(o.filter)
	if err != nil {
		return nil, usageError("parsing -filter: %w", err)
	}
	var parser benchproc.ProjectionParser
	tableBy, _, err := parser.ParseWithUnit(o.tableBy, filter)
	if err != nil {
		return nil, usageError("parsing -table: %w", err)
	}
	rowBy, err := parser.Parse(o.rowBy, filter)
	if err != nil {
		return nil, usageError("parsing -row: %w", err)
	}
	colBy, err := parser.Parse(o.colBy, filter)
	if err != nil {
		return nil, usageError("parsing -col: %w", err)
	}
	if _, err := parser.Parse(o.ignore, filter); err != nil {
		return nil, usageError("parsing -ignore: %w", err)
	}
	b, err := table.NewBuilder(tableBy, rowBy, colBy, parser.Residue())
	if err != nil {
		return nil, err
	}
	kept := 0
	for _, r := range set.Results {
		ok, err := filter.Apply(r)
		if !ok {
			if err != nil {
				fmt.Fprintln(stderr, err)
			}
			continue
		}
		b.Add(r)
		kept++
	}
	if kept == 0 {
		return nil, badInput(fmt.Errorf("%w %q", ErrNoMatch, o.filter))
	}
	return b.Tables(table.Options{
		Confidence: o.confidence,
		Thresholds: &o.thresholds,
		Units:      set.Units,
	}), nil
}
