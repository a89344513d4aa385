package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/runner"
)

// A real but tiny run: one workload, one backend and its peer-go, 10
// iterations a run, two rounds, a few latency samples, and the
// conformance suite on the one backend.
func TestRunCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	out, errOut, code := runCLI(t, "run", "-o", dir, "-backends", "goroutine,peer-go", "-bench", "^JobCreate/",
		"-count", "2", "-benchtime", "10x", "-latency", "20", "-conform-run", "^Scope")
	if code != 0 {
		t.Fatalf("run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	set, err := results.Load(filepath.Join(dir, "results.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range runner.Keys {
		if set.Config(key) == "" {
			t.Errorf("results.txt lacks the %q configuration line", key)
		}
	}
	count := map[string]int{}
	for _, r := range set.Results {
		id := results.Identify(r)
		if id.Workload != "JobCreate" || (id.Backend != "goroutine" && id.Backend != "peer-go") {
			t.Errorf("unexpected benchmark %s", r.Name)
		}
		if id.Latency {
			count["latency/"+id.Backend]++
			if r.Iters != 20 {
				t.Errorf("%s: %d samples, want 20", r.Name, r.Iters)
			}
			continue
		}
		count[id.Backend]++
		if r.Iters != 10 {
			t.Errorf("%s: %d iterations, want 10 (-benchtime 10x)", r.Name, r.Iters)
		}
		if v, ok := r.Value("sec/op"); !ok || v <= 0 {
			t.Errorf("%s: sec/op = %v, %v", r.Name, v, ok)
		}
	}
	for _, k := range []string{"goroutine", "peer-go", "latency/goroutine", "latency/peer-go"} {
		if count[k] != 2 {
			t.Errorf("%d results for %s, want 2 (one per round): %v", count[k], k, count)
		}
	}
	for _, name := range []string{"results.txt", "report.md", "conformance.md", "machine.md", "JobCreate-ratio.png", "JobCreate-ratio.svg",
		"latency-JobCreate.png", "latency-JobCreate.svg"} {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err != nil {
			t.Error(err)
		}
		if !slices.Contains(strings.Split(out, "\n"), path) {
			t.Errorf("stdout does not list %s:\n%s", path, out)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"| JobCreate | goroutine |", "(JobCreate-ratio.svg)", "(latency-JobCreate.svg)", "| kcbench version | " + version} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if !strings.Contains(errOut, "round 2/2") {
		t.Errorf("stderr has no progress line for round 2:\n%s", errOut)
	}
	if !strings.Contains(out, "passed, 0 failed") {
		t.Errorf("stdout has no conformance summary:\n%s", out)
	}
}

func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-backends", "nosuch"},
		{"-bench", "("},
		{"-bench", "^NoSuchWorkload$"},
		{"-count", "0"},
		{"-benchtime", "fast"},
		{"-benchtime", "0x"},
		{"-latency", "-1"},
		{"extra"},
	} {
		_, errOut, code := runCLI(t, append([]string{"run", "-o", dir}, args...)...)
		if code != 2 {
			t.Errorf("run %q: exit %d, want 2\n%s", args, code, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "results.txt")); err == nil {
		t.Error("a rejected run wrote results.txt")
	}
	err := run(io.Discard, io.Discard, []string{"run", "-backends", "nosuch"})
	if err == nil || !strings.Contains(err.Error(), "goroutine") || !strings.Contains(err.Error(), "peer-go") {
		t.Errorf("unknown backend error does not list the known ones: %v", err)
	}
}

func TestDropBackends(t *testing.T) {
	items, err := runner.Plan(runner.Selection{Backends: []string{"goroutine", "peer-go"}})
	if err != nil {
		t.Fatal(err)
	}
	kept := dropBackends(slices.Clone(items), []string{"goroutine"})
	if len(kept) == 0 || len(kept) >= len(items) {
		t.Fatalf("dropBackends kept %d of %d", len(kept), len(items))
	}
	for _, it := range kept {
		if it.Backend == "goroutine" {
			t.Errorf("dropped backend still planned: %s", it.Name())
		}
	}
}

// The CI template and gate script exist and fit together.
func TestCIFiles(t *testing.T) {
	wf := readFile(t, filepath.Join("..", "..", "ci", "github-workflow.yml"))
	for _, want := range []string{"actions/setup-go", "go-version-file: go.mod", "ci/gate.sh", "actions/upload-artifact", "path: reports/latest", ".ci/run", "fetch-depth: 0"} {
		if !strings.Contains(wf, want) {
			t.Errorf("ci/github-workflow.yml lacks %q", want)
		}
	}
	sh := readFile(t, filepath.Join("..", "..", "ci", "gate.sh"))
	for _, want := range []string{"go build -o \"$kcbench\" ./cmd/kcbench", "\"$kcbench\" gate \"${flags[@]}\"", "-base \"$base\"", "-precision 2% -budget 12m", "GITHUB_BASE_REF",
		"\"$kcbench\" run", "\"$kcbench\" gate -baseline", "KCBENCH_BASELINE", "reports/baseline/machine.md"} {
		if !strings.Contains(sh, want) {
			t.Errorf("ci/gate.sh lacks %q", want)
		}
	}
}

// A backend that fails conformance is reported and not benchmarked; the
// others are, everything is written, and run exits 1.
func TestRunConformanceFailure(t *testing.T) {
	registerBroken()
	dir := t.TempDir()
	out, errOut, code := runCLI(t, "run", "-o", dir, "-backends", "goroutine,"+brokenBackend, "-bench", "^AwaitCached/",
		"-count", "1", "-benchtime", "3x", "-latency", "0", "-conform-run", "^TimeoutFiresFirst$")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, brokenBackend+": not benchmarked") || !strings.Contains(out, "1 passed, 1 failed") {
		t.Errorf("the conformance failure is not reported:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
	set, err := results.Load(filepath.Join(dir, "results.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range set.Results {
		if b := results.Identify(r).Backend; b != "goroutine" {
			t.Errorf("backend %s was benchmarked", b)
		}
	}
	md := readFile(t, filepath.Join(dir, "conformance.md"))
	if !strings.Contains(md, "FAIL") {
		t.Errorf("conformance.md shows no failure:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md")); err != nil {
		t.Error(err)
	}
}
