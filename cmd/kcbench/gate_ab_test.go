package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// needGit skips a test that needs git and a checkout of this repository.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command")
	}
	if err := exec.Command("git", "rev-parse", "--verify", "--quiet", "HEAD").Run(); err != nil {
		t.Skip("not in a git checkout with a HEAD commit")
	}
}

// runErr runs a command line and returns stdout, stderr, the exit code
// and the error main would print.
func runErr(args ...string) (stdout, stderr string, code int, msg string) {
	var out, errOut strings.Builder
	err := run(&out, &errOut, args)
	if err != nil {
		msg = err.Error()
	}
	return out.String(), errOut.String(), exitCode(err), msg
}

func TestGateABUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gate", "-base", "HEAD", "-baseline", "x.txt"}, "takes neither -baseline nor a results file"},
		{[]string{"gate", "-base", "HEAD", "new.txt"}, "takes neither -baseline nor a results file"},
		{[]string{"gate", "-base", "HEAD", "-order", "ba"}, `-order "ba": want abba or ab`},
		{[]string{"gate", "-base", "HEAD", "-precision", "2%"}, "-precision needs a -budget"},
		{[]string{"gate", "-base", "HEAD", "-count", "0"}, "-count must be >= 1"},
		{[]string{"gate", "-base", "HEAD", "-bench", "NoSuchBenchmark"}, "no benchmark matches"},
		{[]string{"gate"}, "gate needs -base or -baseline"},
		{[]string{"gate", "-base", "HEAD", "-alpha", "1"}, "-alpha must be in (0, 1) with -base"},
		{[]string{"calibrate", "-ab", "-alpha", "1"}, "-alpha in (0, 1)"},
		{[]string{"calibrate", "-ab", "-backend", "peer-go"}, "the peers do not use"},
		{[]string{"calibrate", "-ab", "-format", "xml"}, `-format "xml"`},
	} {
		_, _, code, msg := runErr(tc.args...)
		if code != 2 || !strings.Contains(msg, tc.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 and %q", tc.args, code, msg, tc.want)
		}
	}
}

func TestGateABBadRef(t *testing.T) {
	needGit(t)
	_, _, code, msg := runErr("gate", "-base", "no-such-ref-of-kcbench", "-bench", "^AwaitCached/", "-backends", "goroutine")
	if code != 2 || !strings.Contains(msg, `bad git ref "no-such-ref-of-kcbench"`) {
		t.Errorf("exit %d, %q; want exit 2 naming the ref", code, msg)
	}
}

// TestGateABRun gates the working tree against HEAD on one cheap row:
// two driver builds, six ABBA rounds of 1ms samples. The verdict of an
// A/A run is not asserted (a false alarm is possible, if rare); its
// shape is.
func TestGateABRun(t *testing.T) {
	needGit(t)
	out, errOut, code, msg := runErr("gate", "-base", "HEAD", "-bench", "^AwaitCached/", "-backends", "goroutine", "-count", "6", "-sample", "1ms")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s\n%s%s", code, msg, out, errOut)
	}
	for _, re := range []string{
		`(?m)^gate: HEAD \([0-9a-f]{12}\) \(base\) vs working tree \(head\), paired ABBA rounds of 1ms samples$`,
		`(?m)^AwaitCached/backend=goroutine\s+sec/op\s+\S+\s+\S+\s+\d+\.\d{3}\s+\[\d+\.\d{3}, \d+\.\d{3}\]\s+±\d+\.\d%\s+\S+\s+\S+\s+6\s+<= 150\.0n\s+(ok|improved|regressed|target-missed|regressed,target-missed)$`,
		`(?m)^(PASS: 1 rows|FAIL: 1 of 1 rows)$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
	if !strings.Contains(errOut, "building the drivers: HEAD") || !strings.Contains(errOut, "done") {
		t.Errorf("progress:\n%s", errOut)
	}
}

// TestCalibrateAB runs one trial of calibrate -ab with a +50% kcslow
// build: it builds A, B, a counting probe and a slowed driver, and must
// report the lines it promises, with the injection counted.
func TestCalibrateAB(t *testing.T) {
	out, errOut, code, msg := runErr("calibrate", "-ab", "-bench", "^JobCreate/", "-backend", "goroutine",
		"-trials", "1", "-count", "6", "-sample", "1ms", "-slowdowns", "50%")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s\n%s%s", code, msg, out, errOut)
	}
	for _, re := range []string{
		`(?m)^row JobCreate/backend=goroutine: base \d+\.\d ns/op, [1-9]\d*\.\d\d injection calls/op, \d+\.\d\d ns a step, steps per call \[[1-9]\d*\]$`,
		`(?m)^A/A false alarms: [01] \((0\.0|100\.0)%\)$`,
		`(?m)^slowdown \+50%: detected [01] \((0\.0|100\.0)%\)$`,
		`(?m)^  JobCreate/backend=goroutine: detected [01] of 1 \(\S+\), measured ratio \d+\.\d{3} \(nominal 1\.500\)`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
	// -tune (the default) measured the slowdown build in a pilot first.
	if re := `(?m)^JobCreate/backend=goroutine \+50%: pilot 1: [1-9]\d* steps a call measured [+-]\d+\.\d%$`; !regexp.MustCompile(re).MatchString(errOut) {
		t.Errorf("progress does not match %s:\n%s", re, errOut)
	}
}
