package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

func TestDispatch(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("PASS\nok  \tpkg\t0.1s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // substring expected on stdout
		stderr string // substring expected on stderr
	}{
		{"no command", nil, 2, "", "commands:\n  calibrate"},
		{"unknown command", []string{"bogus"}, 2, "", "  gate "},
		{"help", []string{"help"}, 0, "  report ", ""},
		{"-h", []string{"-h"}, 0, "  plot ", ""},
		{"help compare", []string{"help", "compare"}, 0, "usage: kcbench compare", ""},
		{"help unknown", []string{"help", "bogus"}, 2, "", ""},
		{"compare -h", []string{"compare", "-h"}, 0, "", "usage: kcbench compare"},
		{"gate -h", []string{"gate", "-h"}, 0, "", "-max-regress"},
		{"bad flag", []string{"compare", "-bogus", "x"}, 2, "", "flag provided but not defined"},
		{"no files", []string{"compare"}, 2, "", "usage: kcbench compare"},
		{"bad format", []string{"compare", "-format", "xml", "testdata/old.txt"}, 2, "", ""},
		{"bad alpha", []string{"compare", "-alpha", "2", "testdata/old.txt"}, 2, "", ""},
		{"bad filter", []string{"compare", "-filter", "(", "testdata/old.txt"}, 2, "", ""},
		{"no match", []string{"compare", "-filter", ".name:Nothing", "testdata/old.txt"}, 2, "", ""},
		{"missing file", []string{"compare", filepath.Join(dir, "missing.txt")}, 2, "", ""},
		{"empty file", []string{"compare", empty}, 2, "", ""},
		{"compare ok", []string{"compare", "testdata/old.txt"}, 0, "JobCreate-2", ""},
		{"plot no file", []string{"plot"}, 2, "", "usage: kcbench plot"},
		{"report bad embed", []string{"report", "-embed", "gif", "testdata/old.txt"}, 2, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			if !strings.Contains(out, tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, out)
			}
			if !strings.Contains(errOut, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errOut)
			}
		})
	}
}

func TestErrorsAndExitCodes(t *testing.T) {
	err := run(io.Discard, io.Discard, []string{"bogus"})
	if !errors.Is(err, ErrUsage) || exitCode(err) != 2 || isSilent(err) {
		t.Errorf("unknown command: %v (exit %d, silent %v)", err, exitCode(err), isSilent(err))
	}
	for _, name := range []string{"calibrate", "compare", "conform", "gate", "plot", "profile", "report", "run"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("unknown command error does not list %q: %v", name, err)
		}
	}
	err = run(io.Discard, io.Discard, []string{"compare", "-bogus"})
	if exitCode(err) != 2 || !isSilent(err) {
		t.Errorf("bad flag: %v (exit %d, silent %v): want exit 2, already reported", err, exitCode(err), isSilent(err))
	}
	if exitCode(nil) != 0 || exitCode(errors.New("x")) != 1 || exitCode(failure(errors.New("x"))) != 1 {
		t.Error("exitCode: want 0 for nil, 1 for plain errors and failures")
	}
}

func TestRegister(t *testing.T) {
	called := false
	register(&command{name: "zz-test", summary: "a test command", run: func(_, _ io.Writer, args []string) error {
		called = len(args) == 1 && args[0] == "arg"
		return nil
	}})
	defer delete(commands, "zz-test")
	if _, _, code := runCLI(t, "zz-test", "arg"); code != 0 || !called {
		t.Errorf("registered command: exit %d, called %v", code, called)
	}
	if out, _, _ := runCLI(t, "help"); !strings.Contains(out, "zz-test") {
		t.Errorf("help does not list the registered command:\n%s", out)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a duplicate name did not panic")
		}
	}()
	register(&command{name: "zz-test", run: func(_, _ io.Writer, _ []string) error { return nil }})
}

// TestHelpWidth keeps every command's help text within 80 columns, as
// it prints to a terminal, where a paragraph edited without reflowing
// shows up as a line that runs past the window.
func TestHelpWidth(t *testing.T) {
	for name, c := range commands {
		for i, line := range strings.Split(c.doc, "\n") {
			if n := len([]rune(line)); n > 80 {
				t.Errorf("%s help, line %d: %d columns; want at most 80:\n%s", name, i+1, n, line)
			}
		}
	}
}

func TestPlotAndReportCommands(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCLI(t, "report", "-o", dir, "-baseline", "testdata/old.txt", "testdata/new.txt")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	for _, name := range []string{"report.md", "JobCreate-ratio.svg", "JobCreate-ratio.png", "FanOut-ratio.svg"} {
		path := filepath.Join(dir, name)
		if !strings.Contains(out, path) {
			t.Errorf("report did not list %s:\n%s", path, out)
		}
		if _, err := os.Stat(path); err != nil {
			t.Error(err)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "![JobCreate: median sec/op relative to the reference backend](JobCreate-ratio.svg)") ||
		!strings.Contains(string(md), "| sec/op vs baseline |") {
		t.Errorf("report.md lacks the embedded chart or the baseline row")
	}

	noData := filepath.Join(dir, "nodata.txt")
	if err := os.WriteFile(noData, []byte("BenchmarkX 1 5 widgets/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, code := runCLI(t, "plot", "-o", dir, noData); code != 2 {
		t.Errorf("plot without sec/op results: exit %d, want 2", code)
	}
	onlyLatency := filepath.Join(dir, "latency.txt")
	line := "BenchmarkLatency/JobCreate/backend=x 10 1 p50-ns 2 p90-ns 3 p99-ns 4 p99.9-ns\n"
	if err := os.WriteFile(onlyLatency, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	if _, _, code := runCLI(t, "report", "-o", empty, "-plots=false", onlyLatency); code != 2 {
		t.Errorf("report without workloads: exit %d, want 2", code)
	}
	if _, err := os.Stat(filepath.Join(empty, "report.md")); err == nil {
		t.Error("a failed report left report.md behind")
	}
}

// report writes report.md without charts for a file with nothing to
// chart (every sec/op zero), saying why, as run's report does; plot
// alone calls that bad input.
func TestReportNoChartData(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "results.txt")
	lines := strings.Repeat("BenchmarkJobCreate/backend=stealing-2 1000 0 ns/op 0 B/op 0 allocs/op\n"+
		"BenchmarkJobCreate/backend=peer-go-2 1000 0 ns/op 0 B/op 0 allocs/op\n", 6)
	if err := os.WriteFile(in, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, errOut, code := runCLI(t, "report", "-o", out, in)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, stdout, errOut)
	}
	md := readFile(t, filepath.Join(out, "report.md"))
	if !strings.Contains(md, "No charts: nothing to plot: no positive sec/op or latency results.") || strings.Contains(md, ".svg") {
		t.Errorf("report.md does not say why it has no charts, or embeds one:\n%s", md)
	}
	if strings.TrimSpace(stdout) != filepath.Join(out, "report.md") {
		t.Errorf("report listed %q; want report.md only", stdout)
	}
	if _, _, code := runCLI(t, "plot", "-o", out, in); code != 2 {
		t.Errorf("plot: exit %d, want 2", code)
	}
}

// A file whose every line is malformed is rejected with exit 2 after its
// syntax errors, file:line: reason, as benchstat prints them: they say
// why there are no results.
func TestNoResultsShowsSyntaxErrors(t *testing.T) {
	in := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(in, []byte("goos: linux\nBenchmarkA/backend=x 1 abc ns/op\nBenchmarkB/backend=x 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"compare", in}, {"gate", "-baseline", in, in}, {"report", "-o", t.TempDir(), in}} {
		var out, errOut strings.Builder
		err := run(&out, &errOut, cmd)
		want := in + ":2: parsing measurement: invalid syntax\n" + in + ":3: missing measurements\n"
		if exitCode(err) != 2 || !errors.Is(err, results.ErrNoResults) || !strings.HasPrefix(errOut.String(), want) {
			t.Errorf("%s: exit %d, %v, stderr %q; want exit 2, ErrNoResults after\n%s", cmd[0], exitCode(err), err, errOut.String(), want)
		}
	}
}
