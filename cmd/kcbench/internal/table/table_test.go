package table

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

func TestGeoMean(t *testing.T) {
	if got := GeoMean([]float64{1, 4, 16}); math.Abs(got-4) > 1e-12 {
		t.Errorf("GeoMean(1,4,16) = %v, want 4", got)
	}
	for _, xs := range [][]float64{nil, {1, 0}, {2, -1}} {
		if got := GeoMean(xs); !math.IsNaN(got) {
			t.Errorf("GeoMean(%v) = %v, want NaN", xs, got)
		}
	}
	// Large values overflow a product but not a mean of logarithms.
	if got := GeoMean([]float64{1e300, 1e300, 1e300}); math.Abs(got/1e300-1) > 1e-9 {
		t.Errorf("GeoMean(1e300 x3) = %v", got)
	}
}

// parse reads benchmark lines into results, each a clone.
func parse(t *testing.T, text string) []*benchfmt.Result {
	t.Helper()
	r := benchfmt.NewReader(strings.NewReader(text), "test")
	var out []*benchfmt.Result
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			out = append(out, res.Clone())
		}
	}
	return out
}

// build builds tables of text with the given row and column projections.
func build(t *testing.T, text, row, col string) *Tables {
	t.Helper()
	var p benchproc.ProjectionParser
	tableBy, _, err := p.ParseWithUnit(".config", nil)
	if err != nil {
		t.Fatal(err)
	}
	rowBy, err := p.Parse(row, nil)
	if err != nil {
		t.Fatal(err)
	}
	colBy, err := p.Parse(col, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBuilder(tableBy, rowBy, colBy, p.Residue())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range parse(t, text) {
		b.Add(r)
	}
	th := benchmath.DefaultThresholds
	return b.Tables(Options{Confidence: 0.95, Thresholds: &th})
}

func TestTables(t *testing.T) {
	var text strings.Builder
	for i := range 10 {
		f := float64(i)
		text.WriteString("BenchmarkA/backend=x 1 " + fmt.Sprint(100+f) + " ns/op\n")
		text.WriteString("BenchmarkA/backend=y 1 " + fmt.Sprint(200+f) + " ns/op\n")
		text.WriteString("BenchmarkB/backend=x 1 " + fmt.Sprint(100+f) + " ns/op\n")
		text.WriteString("BenchmarkB/backend=y 1 " + fmt.Sprint(100+f) + " ns/op\n")
	}
	ts := build(t, text.String(), ".name", "/backend")
	if len(ts.Tables) != 1 {
		t.Fatalf("%d tables, want 1", len(ts.Tables))
	}
	tb := ts.Tables[0]
	if tb.Unit != "sec/op" || len(tb.Rows) != 2 || len(tb.Cols) != 2 {
		t.Fatalf("table %s %dx%d", tb.Unit, len(tb.Rows), len(tb.Cols))
	}
	a := tb.Cells[Key{tb.Rows[0], tb.Cols[1]}]
	if a.Baseline == nil || a.Delta() != "+95.69%" || a.Comparison.P > 0.001 {
		t.Errorf("A y vs x: delta %q p %v", a.Delta(), a.Comparison.P)
	}
	b := tb.Cells[Key{tb.Rows[1], tb.Cols[1]}]
	if b.Delta() != "~" {
		t.Errorf("B y vs x: delta %q, want ~", b.Delta())
	}
	s := tb.Summary[tb.Cols[1]]
	if !s.HasRatio || math.Abs(s.Ratio-math.Sqrt(204.5/104.5)) > 1e-9 {
		t.Errorf("geomean ratio = %v", s.Ratio)
	}
	if got := tb.RowScaler(tb.Rows[0]).Format(a.Summary.Center); got != "204.5n" {
		t.Errorf("scaled center = %q", got)
	}
	if c := ts.Config(0); len(c) != 0 {
		t.Errorf("Config = %v, want none", c)
	}
}

func TestResidueWarning(t *testing.T) {
	text := "BenchmarkA/n=1 1 1 ns/op\nBenchmarkA/n=2 1 2 ns/op\n"
	ts := build(t, text, ".name", ".file")
	c := ts.Tables[0].Cells[Key{ts.Tables[0].Rows[0], ts.Tables[0].Cols[0]}]
	if len(c.Sample.Warnings) != 1 || c.Sample.Warnings[0].Error() != "benchmarks vary in .fullname" {
		t.Errorf("warnings = %v", c.Sample.Warnings)
	}
}

func TestNewBuilderNeedsUnit(t *testing.T) {
	var p benchproc.ProjectionParser
	proj, err := p.Parse(".config", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewBuilder(proj, proj, proj, proj); !errors.Is(err, ErrNoUnitField) {
		t.Errorf("NewBuilder without .unit = %v, want ErrNoUnitField", err)
	}
}
