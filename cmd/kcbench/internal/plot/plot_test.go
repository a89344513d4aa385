package plot

import (
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results/resultstest"
)

func TestPlan(t *testing.T) {
	var names []string
	for _, c := range Plan(resultstest.Load(t, "results.txt")) {
		names = append(names, c.Name)
	}
	want := []string{
		"JobCreate-ratio", "AwaitCached-ratio", "AwaitPending-ratio",
		"CancelFanout-ratio", "CancelFanout-scaling", "WaitersStorm-ratio",
		"NestedScopes-ratio", "FanOut-ratio", "FanOut-scaling", "ChanPingPong-ratio",
		"latency-JobCreate", "latency-AwaitPending",
	}
	if !slices.Equal(names, want) {
		t.Errorf("Plan = %v\nwant %v", names, want)
	}
}

func TestWriteFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plots")
	files, err := Write(dir, resultstest.Load(t, "results.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 24 {
		t.Fatalf("wrote %d files, want 24: %v", len(files), files)
	}
	// The ratio charts name their reference in the title, and the floor
	// line in the y label where the floor ran.
	for name, want := range map[string]string{
		"JobCreate-ratio.svg":    "relative to peer-go",
		"CancelFanout-ratio.svg": "relative to goroutine (n=1000)",
		"FanOut-ratio.svg":       "dotted: floor",
	} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), want) {
			t.Errorf("%s does not contain %q", name, want)
		}
	}
	for _, f := range files {
		switch filepath.Ext(f) {
		case ".png":
			checkPNG(t, f)
		case ".svg":
			checkSVG(t, f)
		default:
			t.Errorf("unexpected file %s", f)
		}
	}
}

// checkPNG decodes a PNG file and checks its size: 6x4 inches at 96 dpi.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != 576 || b.Dy() != 384 {
		t.Errorf("%s: %dx%d pixels, want 576x384", path, b.Dx(), b.Dy())
	}
}

// checkSVG parses an SVG file as XML and checks its root element and
// size: 6x4 inches = 432x288 points.
func checkSVG(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var root struct {
		XMLName xml.Name
		Width   string `xml:"width,attr"`
		Height  string `xml:"height,attr"`
	}
	if err := xml.Unmarshal(data, &root); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if root.XMLName.Local != "svg" || root.Width != "432pt" || root.Height != "288pt" {
		t.Errorf("%s: root <%s width=%q height=%q>, want <svg width=\"432pt\" height=\"288pt\">",
			path, root.XMLName.Local, root.Width, root.Height)
	}
	// The whole document must parse, not just the root.
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	for {
		if _, err := dec.Token(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("%s: %v", path, err)
			}
			break
		}
	}
}

func TestRatioReference(t *testing.T) {
	if got := Reference([]string{"stealing", "peer-go"}); got != "peer-go" {
		t.Errorf("Reference with peer-go = %q", got)
	}
	if got := Reference([]string{"goroutine", "stealing", "peer-context"}); got != "goroutine" {
		t.Errorf("Reference without peer-go = %q", got)
	}
}

func TestNoData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.txt")
	if err := os.WriteFile(path, []byte("BenchmarkX 1 5 widgets/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := results.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(t.TempDir(), set); !errors.Is(err, ErrNoData) {
		t.Errorf("Write = %v, want ErrNoData", err)
	}
}

func TestFormatSeconds(t *testing.T) {
	for v, want := range map[float64]string{1e-6: "1µs", 2.5e-7: "250ns", 1e-5: "10µs", 1.5: "1.5s"} {
		if got := FormatSeconds(v); got != want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", v, got, want)
		}
	}
	if got := FileBase("Fan Out/x"); got != "Fan_Out_x" {
		t.Errorf("FileBase = %q", got)
	}
}

// TestDegenerateRanges draws charts whose log axes would have an empty
// range (every value equal), which gonum widens by ±1 down to 0 and
// LogTicks rejects with a panic unless the range is set explicitly.
func TestDegenerateRanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.txt")
	text := "BenchmarkFanOut/backend=x/n=10 1 5 ns/op\n" +
		"BenchmarkFanOut/backend=x/n=100 1 5 ns/op\n" +
		"BenchmarkFanOut/backend=y/n=100 1 0 ns/op\n" +
		"BenchmarkLatency/AwaitPending/backend=x 1 7 p50-ns\n" +
		"BenchmarkJobCreate/backend=peer-go 1 0 ns/op\n" +
		"BenchmarkJobCreate/backend=x 1 3 ns/op\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := results.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range Plan(set) {
		names = append(names, c.Name)
	}
	// JobCreate's reference (peer-go) is 0: no ratio can be drawn.
	// (benchfmt keeps "0 ns/op" untidied; Series tidies it.)
	if want := []string{"FanOut-ratio", "FanOut-scaling", "latency-AwaitPending"}; !slices.Equal(names, want) {
		t.Errorf("Plan = %v, want %v", names, want)
	}
	files, err := Write(t.TempDir(), set)
	if err != nil || len(files) != 6 {
		t.Fatalf("Write = %v, %v; want 6 files", files, err)
	}
}
