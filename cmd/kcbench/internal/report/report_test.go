package report

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/results/resultstest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// load reads a results file of cmd/kcbench/testdata.
func load(t *testing.T, name string) *results.Set {
	t.Helper()
	return resultstest.Load(t, name)
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		opts   Options
	}{
		{"report.md.golden", Options{Plots: true}},
		{"report-baseline.md.golden", Options{
			Baseline: load(t, "baseline.txt"), BaselineName: "baseline.txt",
			Plots: true, PlotDir: "plots", PlotExt: ".png",
		}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, load(t, "results.txt"), tc.opts); err != nil {
				t.Fatal(err)
			}
			resultstest.Golden(t, tc.golden, b.String(), *update)
		})
	}
}

// TestTargets checks the pass/fail marks against the medians of
// results.txt: vcore misses AwaitCached (163ns > 150ns), goroutine
// misses JobCreate (520ns > 450ns), stealing meets JobCreate but not its
// stretch goal (312ns > 300ns), vcore meets both (284ns).
func TestTargets(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, load(t, "results.txt"), Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	wantAll(t, "report", out,
		"| AwaitCached | vcore | 163.4ns | ≤ 150.0ns | ❌ FAIL | ≤ 100.0ns | ❌ not met |",
		"| JobCreate | goroutine | 519.8ns | ≤ 450.0ns | ❌ FAIL |",
		"| JobCreate | stealing | 312.5ns | ≤ 450.0ns | ✅ pass | ≤ 300.0ns | ❌ not met |",
		"| JobCreate | vcore | 284.1ns | ≤ 450.0ns | ✅ pass | ≤ 300.0ns | ✅ met |",
		"| gomaxprocs | 2 |",
		"| commit | 0123456789abcdef0123456789abcdef01234567 |",
	)
	targets, _, _ := strings.Cut(out[strings.Index(out, "## Spec targets"):], "\n## ")
	if strings.Contains(targets, "| JobCreate | peer-") || strings.Contains(targets, "| JobCreate | floor |") {
		t.Error("peers and the floor must be exempt from the spec targets")
	}
	if !strings.Contains(out, "| sec/op vs floor | 8.42× (8.23–8.60, MDE 4.2%) | 5.07× (4.97–5.16, MDE 3.5%) |") {
		t.Error("JobCreate's table lacks its sec/op vs floor row")
	}
	if strings.Contains(out, "![") {
		t.Error("charts embedded although Plots is false")
	}
}

func TestNoWorkloads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.txt")
	line := "BenchmarkLatency/JobCreate/backend=x 10 1 p50-ns 2 p90-ns 3 p99-ns 4 p99.9-ns\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := results.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Render(&bytes.Buffer{}, set, Options{}); !errors.Is(err, ErrNoWorkloads) {
		t.Errorf("Render = %v, want ErrNoWorkloads", err)
	}
}

// Options.NoCharts is printed under the configuration, and nothing when
// empty.
func TestNoChartsReason(t *testing.T) {
	set, err := results.Load(filepath.Join("..", "..", "testdata", "small.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var with, without bytes.Buffer
	if err := Render(&with, set, Options{NoCharts: "nothing to plot"}); err != nil {
		t.Fatal(err)
	}
	if err := Render(&without, set, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(with.String(), "|\n\nNo charts: nothing to plot.\n\n## Spec targets") || strings.Contains(without.String(), "No charts") {
		t.Errorf("with a reason:\n%s\nwithout:\n%s", with.String(), without.String())
	}
}
