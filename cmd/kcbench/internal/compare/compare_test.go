package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/table"
)

// tables builds the comparison tables of text by /backend.
func tables(t *testing.T, text string) *table.Tables {
	t.Helper()
	var p benchproc.ProjectionParser
	tableBy, _, err := p.ParseWithUnit(".config", nil)
	if err != nil {
		t.Fatal(err)
	}
	rowBy, _ := p.Parse(".name", nil)
	colBy, _ := p.Parse("/backend", nil)
	b, err := table.NewBuilder(tableBy, rowBy, colBy, p.Residue())
	if err != nil {
		t.Fatal(err)
	}
	r := benchfmt.NewReader(strings.NewReader(text), "t")
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			b.Add(res.Clone())
		}
	}
	th := benchmath.DefaultThresholds
	return b.Tables(table.Options{Confidence: 0.95, Thresholds: &th})
}

// input has 4 samples a side (too few for an interval) and a zero B/op.
const input = `goos: linux
BenchmarkA/backend=x 1 100 ns/op 0 B/op
BenchmarkA/backend=x 1 101 ns/op 0 B/op
BenchmarkA/backend=x 1 102 ns/op 0 B/op
BenchmarkA/backend=x 1 103 ns/op 0 B/op
BenchmarkA/backend=y 1 200 ns/op 8 B/op
BenchmarkA/backend=y 1 201 ns/op 8 B/op
BenchmarkA/backend=y 1 202 ns/op 8 B/op
BenchmarkA/backend=y 1 203 ns/op 8 B/op
`

func TestRenderFormats(t *testing.T) {
	ts := tables(t, input)
	for _, f := range Formats {
		var out, warn bytes.Buffer
		if err := Render(&out, &warn, ts, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !strings.Contains(out.String(), "201.5n") && !strings.Contains(out.String(), "2.015e-07") && !strings.Contains(out.String(), "2.015e-7") {
			t.Errorf("%s output lacks the y median:\n%s", f, out.String())
		}
	}
	if err := Render(&bytes.Buffer{}, &bytes.Buffer{}, ts, "xml"); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("Render(xml) = %v, want ErrUnknownFormat", err)
	}
}

func TestJSONInfiniteInterval(t *testing.T) {
	var out bytes.Buffer
	if err := JSON(&out, tables(t, input)); err != nil {
		t.Fatal(err)
	}
	var doc JSONOutput
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Tables[0].Rows[0].Cells[1]
	if c.Lo != nil || c.Hi != nil || c.Range != "∞" || c.N != 4 || len(c.Warnings) == 0 {
		t.Errorf("cell with 4 samples: %+v", c)
	}
	if c.VsBase == nil || c.VsBase.Ratio == nil || math.Abs(*c.VsBase.Ratio-201.5/101.5) > 1e-12 || c.VsBase.Delta != "+98.52%" {
		t.Errorf("comparison: %+v", c.VsBase)
	}
	bytesTable := doc.Tables[1]
	if bytesTable.Unit != "B/op" || bytesTable.Rows[0].Cells[1].VsBase.Ratio != nil {
		t.Errorf("ratio from a zero baseline must be null: %+v", bytesTable.Rows[0].Cells[1].VsBase)
	}
}

func TestTextFootnotes(t *testing.T) {
	var out bytes.Buffer
	if err := Text(&out, tables(t, input)); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"goos: linux", "│", "vs base", "± ∞ ¹", "¹ need >= 6 samples for confidence interval at level 0.95"} {
		if !strings.Contains(s, want) {
			t.Errorf("text lacks %q:\n%s", want, s)
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("trailing space in %q", line)
		}
	}
}

func TestGrid(t *testing.T) {
	var g grid
	g.row()
	g.add(gridCell{col: 1, span: 2, text: "wide header", align: center})
	g.row()
	g.add(gridCell{col: 0, text: "x"})
	g.add(gridCell{col: 2, text: "1", margin: " ± ", align: right})
	g.add(gridCell{col: 1, text: "12", margin: " ", align: right})
	var out bytes.Buffer
	if err := g.write(&out); err != nil {
		t.Fatal(err)
	}
	want := "  wide header\nx 12 ±      1\n"
	if out.String() != want {
		t.Errorf("grid:\n%q\nwant\n%q", out.String(), want)
	}
	if superscript(0) != "⁰" || superscript(12) != "¹²" {
		t.Errorf("superscript: %q %q", superscript(0), superscript(12))
	}
	if cellName(0) != "A" || cellName(1) != "B" || cellName(27) != "BB" {
		t.Errorf("cellName: %q %q %q", cellName(0), cellName(1), cellName(27))
	}
}
