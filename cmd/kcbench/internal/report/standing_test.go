package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// renderLines renders a results file written from lines and returns the
// report.
func renderLines(t *testing.T, lines []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := results.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(&b, set, Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// standingSection renders lines and returns the standing section.
func standingSection(t *testing.T, lines []string) string {
	t.Helper()
	out := renderLines(t, lines)
	i := strings.Index(out, "## Standing against the best peer")
	if i < 0 {
		t.Fatalf("no standing section:\n%s", out)
	}
	section, _, _ := strings.Cut(out[i:], "\nEach table")
	return section
}

// wantAll fails t for each of wants that text (the part of the report
// called what) lacks.
func wantAll(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}

// TestStanding checks the verdicts of the standing table on rounds built
// so that each is certain: a backend always 20% faster than the best peer
// (ahead), always 20% slower (behind), and alternately 1% either side
// (even); the best peer is the faster of two; a workload without a peer
// has no row; and the floor's ratio carries no verdict.
func TestStanding(t *testing.T) {
	var lines []string
	for i := range 10 {
		d := float64(i % 3) // a little spread, the same in every backend
		lines = append(lines,
			fmt.Sprintf("BenchmarkJobCreate/backend=ahead 1 %g ns/op", 80+d),
			fmt.Sprintf("BenchmarkJobCreate/backend=behind 1 %g ns/op", 120+d),
			fmt.Sprintf("BenchmarkJobCreate/backend=even 1 %g ns/op", 100+d+float64(1-2*(i%2))),
			fmt.Sprintf("BenchmarkJobCreate/backend=peer-go 1 %g ns/op", 100+d),
			fmt.Sprintf("BenchmarkJobCreate/backend=peer-conc 1 %g ns/op", 150+d),
			fmt.Sprintf("BenchmarkJobCreate/backend=floor 1 %g ns/op", 50+d),
			fmt.Sprintf("BenchmarkAwaitCached/backend=ahead 1 %g ns/op", 5+d),
		)
	}
	section := standingSection(t, lines)
	wantAll(t, "standing", section,
		"| row | best peer | ahead | behind | even | floor |",
		"| JobCreate | peer-go 101.0ns | ✅ 0.80× (",
		"| ❌ 1.20× (",
		"| ≈ 1.00× (",
		"| 0.50× (0.50–0.51) |",
	)
	if strings.Contains(section, "AwaitCached") {
		t.Errorf("a row without a peer is in the standing table:\n%s", section)
	}
}

// TestStandingNoPeers checks that a run without peers has no standing
// section.
func TestStandingNoPeers(t *testing.T) {
	var lines []string
	for range 8 {
		lines = append(lines, "BenchmarkJobCreate/backend=stealing 1 100 ns/op", "BenchmarkJobCreate/backend=floor 1 50 ns/op")
	}
	if out := renderLines(t, lines); strings.Contains(out, "## Standing") {
		t.Errorf("standing section without peers:\n%s", out)
	}
}

// TestSpread checks the spread table on rounds built so that each ratio
// is certain: one backend always 25% slower than the fastest, the
// fastest marked as such, peers and the floor not among the columns
// (even when faster), a row without peers kept, a row with one backend
// left out, and latency percentiles compared too.
func TestSpread(t *testing.T) {
	var lines []string
	for i := range 10 {
		d := float64(i % 3)
		lines = append(lines,
			fmt.Sprintf("BenchmarkJobCreate/backend=quick 1 %g ns/op", 80+d),
			fmt.Sprintf("BenchmarkJobCreate/backend=slow 1 %g ns/op", 100+d*1.25),
			fmt.Sprintf("BenchmarkJobCreate/backend=peer-go 1 %g ns/op", 50+d),
			fmt.Sprintf("BenchmarkJobCreate/backend=floor 1 %g ns/op", 10+d),
			fmt.Sprintf("BenchmarkAwaitCached/backend=quick 1 %g ns/op", 10+d),
			fmt.Sprintf("BenchmarkAwaitCached/backend=slow 1 %g ns/op", 5+d*0.5),
			fmt.Sprintf("BenchmarkNestedScopes/backend=quick 1 %g ns/op", 10+d),
			fmt.Sprintf("BenchmarkLatency/JobCreate/backend=quick 1000 %g p50-ns 400 p90-ns 800 p99-ns 900 p99.9-ns", 300+d),
			fmt.Sprintf("BenchmarkLatency/JobCreate/backend=slow 1000 %g p50-ns 500 p90-ns 1000 p99-ns 1100 p99.9-ns", 600+2*d),
		)
	}
	out := renderLines(t, lines)
	i := strings.Index(out, "## Backends against the fastest backend")
	if i < 0 {
		t.Fatalf("no spread section:\n%s", out)
	}
	section, _, _ := strings.Cut(out[i:], "\nEach table")
	wantAll(t, "spread", section,
		"| row | fastest | quick | slow |",
		"| JobCreate | quick 81.00ns | fastest | 1.25× (1.25–1.25) |",
		"| AwaitCached | slow 5.500ns | 2.00× (2.00–2.00) | fastest |",
		"| latency JobCreate p50 | quick 301.0ns | fastest | 2.00× (2.00–2.00) |",
	)
	for _, notWant := range []string{"NestedScopes", "peer-go", "floor"} {
		if strings.Contains(section, notWant) {
			t.Errorf("spread has %q:\n%s", notWant, section)
		}
	}
}

// TestSpreadOneBackend checks that a run with one kcbench backend has no
// spread section.
func TestSpreadOneBackend(t *testing.T) {
	var lines []string
	for range 8 {
		lines = append(lines, "BenchmarkJobCreate/backend=stealing 1 100 ns/op", "BenchmarkJobCreate/backend=peer-go 1 50 ns/op")
	}
	if out := renderLines(t, lines); strings.Contains(out, "## Backends against") {
		t.Errorf("spread section with one backend:\n%s", out)
	}
}

// TestStandingBoundaries checks the standing table where its rules meet
// their edges: two peers with the same median (the first in Peers' order
// is the best, whatever the file's order), a peer whose median is zero
// (never the best), an interval ending exactly at 1 (✅: at or below 1),
// one starting exactly at 1 (≈: not above 1), and a row with too few
// rounds for an interval (the ratio of the medians, cur over ref).
func TestStandingBoundaries(t *testing.T) {
	var lines []string
	for i := range 10 {
		d := float64(i % 3)
		edge := 100 + d // 7 rounds as fast as the peer, 3 twice as slow
		if i >= 7 {
			edge = 2 * (100 + d)
		}
		lines = append(lines,
			fmt.Sprintf("BenchmarkJobCreate/backend=peer-errgroup 1 %g ns/op", 100+d),
			fmt.Sprintf("BenchmarkJobCreate/backend=peer-go 1 %g ns/op", 100+d),
			fmt.Sprintf("BenchmarkJobCreate/backend=same 1 %g ns/op", 100+d),
			fmt.Sprintf("BenchmarkJobCreate/backend=edge 1 %g ns/op", edge),
			"BenchmarkAwaitCached/backend=peer-go 1 0 ns/op",
			fmt.Sprintf("BenchmarkAwaitCached/backend=peer-conc 1 %g ns/op", 10+d),
			fmt.Sprintf("BenchmarkAwaitCached/backend=same 1 %g ns/op", 10+d),
		)
	}
	for range 3 {
		lines = append(lines, "BenchmarkSelect/backend=peer-go 1 100 ns/op", "BenchmarkSelect/backend=same 1 50 ns/op")
	}
	section := standingSection(t, lines)
	wantAll(t, "standing", section,
		"| row | best peer | same | edge | floor |",
		"| JobCreate | peer-go 101.0ns | ✅ 1.00× (1.00–1.00) | ≈ 1.00× (1.00–1.41) | — |",
		"| AwaitCached | peer-conc 11.00ns | ✅ 1.00× (1.00–1.00) | — | — |",
		"| Select | peer-go 100.0ns | 0.50× (n=3) | — | — |",
	)
}
