package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcbench/kcbench/internal/testutil"
)

var (
	update          = flag.Bool("update", false, "rewrite kcbench's own golden files under testdata")
	updateBenchstat = flag.Bool("update-benchstat", false, "rewrite the benchstat goldens by running go run golang.org/x/perf/cmd/benchstat")
)

// compareCase is one golden comparison: kcbench's arguments and the
// equivalent benchstat arguments.
type compareCase struct {
	name      string
	args      []string
	benchstat []string
}

var compareCases = []compareCase{
	{"ab", []string{"testdata/old.txt", "testdata/new.txt"}, nil},
	{"labels", []string{"-alpha", "0.01", "before=testdata/old.txt", "after=testdata/new.txt"}, nil},
	{"backends", []string{"testdata/results.txt"},
		[]string{"-col", "/backend", "testdata/results.txt"}},
	{"peers", []string{"-col", "/backend@(peer-go goroutine stealing vcore)", "-row", ".name",
		"-filter", ".name:(JobCreate OR AwaitCached OR AwaitPending) .unit:sec/op", "testdata/results.txt"}, nil},
	{"sizes", []string{"-col", "/n", "-row", ".name,/backend", "-filter", ".name:(FanOut OR CancelFanout)",
		"testdata/results.txt"}, nil},
	{"small", []string{"-col", "/backend", "testdata/small.txt"}, nil},
}

// runCLI runs kcbench in-process and returns its output and exit code.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(&out, &errOut, args)
	return out.String(), errOut.String(), exitCode(err)
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string, rewrite bool) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), got, rewrite)
}

// benchstatOutput returns the golden output of real benchstat for the
// case and format, regenerating it under -update-benchstat.
func benchstatOutput(t *testing.T, c compareCase, format string) (stdout, stderr string) {
	t.Helper()
	args := c.benchstat
	if args == nil {
		args = c.args
	}
	base := "compare-" + c.name + ".benchstat." + format
	if *updateBenchstat {
		cmd := exec.Command("go", append([]string{"run", "golang.org/x/perf/cmd/benchstat", "-format", format}, args...)...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("benchstat: %v\n%s", err, errOut.String())
		}
		golden(t, base, out.String(), true)
		if format == "csv" {
			golden(t, base+".stderr", errOut.String(), true)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatalf("%v (run go test -update-benchstat)", err)
		}
		return string(b)
	}
	stdout = read(base)
	if format == "csv" {
		stderr = read(base + ".stderr")
	}
	return stdout, stderr
}

// normalize removes what differs between kcbench's and benchstat's text
// layouts: box-drawing rules and the amount of white space.
func normalize(s string) []string {
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.ReplaceAll(line, "│", " ")
		lines = append(lines, strings.Join(strings.Fields(line), " "))
	}
	return lines
}

// TestCompareMatchesBenchstat checks every value kcbench compare prints
// against benchstat's own output for the same input: the CSV form must
// be identical (centers at full precision, intervals, deltas, p-values,
// sample sizes, geomeans and warnings), and the text form identical up
// to spacing.
func TestCompareMatchesBenchstat(t *testing.T) {
	for _, c := range compareCases {
		t.Run(c.name, func(t *testing.T) {
			wantCSV, wantWarn := benchstatOutput(t, c, "csv")
			gotCSV, gotWarn, code := runCLI(t, append([]string{"compare", "-format", "csv"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, gotWarn)
			}
			if gotCSV != wantCSV {
				t.Errorf("csv differs from benchstat's:\n--- kcbench\n%s\n--- benchstat\n%s", gotCSV, wantCSV)
			}
			if gotWarn != wantWarn {
				t.Errorf("csv warnings differ from benchstat's:\n--- kcbench\n%s\n--- benchstat\n%s", gotWarn, wantWarn)
			}

			wantText, _ := benchstatOutput(t, c, "text")
			gotText, stderr, code := runCLI(t, append([]string{"compare"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got, want := normalize(gotText), normalize(wantText)
			if len(got) != len(want) {
				t.Fatalf("text has %d lines, benchstat %d:\n%s\n--- benchstat\n%s", len(got), len(want), gotText, wantText)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("text line %d:\n kcbench:   %s\n benchstat: %s", i+1, got[i], want[i])
				}
			}
		})
	}
}

// TestCompareGolden checks the text, Markdown and JSON renderings
// against kcbench's own golden files (go test -update rewrites them).
func TestCompareGolden(t *testing.T) {
	for _, c := range compareCases {
		for _, format := range []string{"text", "markdown", "json"} {
			t.Run(c.name+"/"+format, func(t *testing.T) {
				out, stderr, code := runCLI(t, append([]string{"compare", "-format", format}, c.args...)...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				ext := map[string]string{"text": ".golden", "markdown": ".md.golden", "json": ".json.golden"}[format]
				golden(t, "compare-"+c.name+ext, out, *update)
			})
		}
	}
}
