package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Golden output of the gate for each exit code: stdout, the exit code and
// the error main would print, with the temporary directory written $DIR.
func TestGateGolden(t *testing.T) {
	dir := t.TempDir()
	base := benchFile(t, dir, "base.txt", 1, 10, good, "")
	slowFanOut := with(good, "FanOut/backend=stealing/n=10", 6000)
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"gate-exit0-clean", []string{"-baseline", base, benchFile(t, dir, "clean.txt", 2, 10, good, "")}, 0},
		{"gate-exit1-regressed", []string{"-baseline", base, benchFile(t, dir, "slow.txt", 3, 10,
			with(slowFanOut, "JobCreate/backend=stealing", 330), "")}, 1},
		{"gate-exit1-target", []string{"-baseline", base, benchFile(t, dir, "miss.txt", 5, 10,
			with(with(good, "AwaitCached/backend=vcore", 160), "JobCreate/backend=stealing", 460), "")}, 1},
		{"gate-exit2-few", []string{"-baseline", base, benchFile(t, dir, "few.txt", 6, 5, good, "")}, 2},
		{"gate-exit2-empty", []string{"-baseline", base, filepath.Join(dir, "missing.txt")}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			err := run(&out, &errOut, append([]string{"gate"}, tc.args...))
			if code := exitCode(err); code != tc.code {
				t.Fatalf("exit %d, want %d: %v\n%s", code, tc.code, err, out.String())
			}
			got := fmt.Sprintf("%s--- exit %d\n", out.String(), tc.code)
			if err != nil {
				got += "kcbench: " + err.Error() + "\n"
			}
			got = strings.ReplaceAll(got, dir, "$DIR")
			golden(t, tc.name+".golden", got, *update)
		})
	}
}

// The report command renders testdata/results.txt as the golden file says
// (without charts: drawing them all is slow under -race, and
// TestPlotAndReportCommands and package report's golden test cover them).
func TestReportGolden(t *testing.T) {
	dir := t.TempDir()
	if out, errOut, code := runCLI(t, "report", "-plots=false", "-o", dir, "testdata/results.txt"); code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, out, errOut)
	}
	golden(t, "report-noplots.md.golden", readFile(t, filepath.Join(dir, "report.md")), *update)
}

// readFile returns the contents of path.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
