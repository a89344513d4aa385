package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/profiles"
)

func TestProfileCommand(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCLI(t, "profile", "-bench", "AwaitCached", "-backend", "goroutine", "-vs", "peer-go",
		"-benchtime", "2000x", "-o", dir)
	if code != 0 {
		t.Fatalf("profile: exit %d\n%s%s", code, out, errOut)
	}
	files := strings.Fields(out)
	var want []string
	for _, kind := range profiles.Kinds {
		want = append(want, filepath.Join(dir, "AwaitCached-goroutine."+kind+".pprof"))
	}
	diff := filepath.Join(dir, "AwaitCached-goroutine-vs-peer-go.cpu.pprof")
	want = append(want, diff)
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Fatalf("profile wrote\n%s\nwant\n%s", strings.Join(files, "\n"), strings.Join(want, "\n"))
	}
	for i, path := range want {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := profile.ParseData(data)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		kind := "cpu"
		if i < len(profiles.Kinds) {
			kind = profiles.Kinds[i]
		}
		if kind == "cpu" && (len(p.SampleType) != 2 || p.SampleType[1].Unit != "nanoseconds") {
			t.Errorf("%s: sample types %v, want samples and cpu nanoseconds", path, p.SampleType)
		}
	}
	// go tool pprof opens the difference (the -top table), where a Go
	// toolchain is at hand.
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run go tool pprof with")
	}
	cmd := exec.Command(goTool, "tool", "pprof", "-top", diff)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go tool pprof -top %s: %v\n%s", diff, err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "flat%") {
		t.Errorf("go tool pprof -top printed no table:\n%s%s", stdout.String(), stderr.String())
	}
}

func TestProfileBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		list string // what the error must say: a known name it lists, or the flag it blames
	}{
		{[]string{"-bench", "NoSuch", "-backend", "goroutine"}, "JobCreate"},
		{[]string{"-bench", "JobCreate", "-backend", "nosuch"}, "goroutine"},
		{[]string{"-bench", "JobCreate", "-backend", "goroutine", "-vs", "nosuch"}, "peer-go"},
		{[]string{"-bench", "CancelFanout", "-backend", "peer-go"}, "peer-context"}, // no peer-go for it
		{[]string{"-backend", "goroutine"}, "JobCreate"},
		{[]string{"-bench", "JobCreate", "-backend", "goroutine", "-benchtime", "0x"}, ""},
		{[]string{"-bench", "JobCreate", "-backend", "goroutine", "-n", "3"}, "-n: "}, // JobCreate is unsized
		{[]string{"-bench", "CancelFanout", "-backend", "goroutine", "-vs", "peer-context", "-n", "-1"}, "-n: "},
	} {
		err := run(io.Discard, io.Discard, append([]string{"profile", "-o", t.TempDir()}, tc.args...))
		if exitCode(err) != 2 || !errors.Is(err, ErrUsage) {
			t.Errorf("profile %q: %v (exit %d), want a usage error", tc.args, err, exitCode(err))
			continue
		}
		if !strings.Contains(err.Error(), tc.list) {
			t.Errorf("profile %q: error does not list %q: %v", tc.args, tc.list, err)
		}
	}
}

func TestCalibrateCommand(t *testing.T) {
	// -family 1: 6 samples a side cannot reach the default family's level.
	out, errOut, code := runCLI(t, "calibrate", "-trials", "2", "-samples", "6", "-family", "1", "-benchtime", "20x", "-slowdowns", "25%,10%")
	if code != 0 && code != 1 { // 1: too noisy to trust, a legitimate verdict on a tiny run
		t.Fatalf("calibrate: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"workload: JobCreate/backend=peer-go", "calibration: 2 trials, 6 samples a side",
		"A/A false alarms: ", "slowdown +10%: detected ", "slowdown +25%: detected "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, args := range [][]string{
		{"-bench", "CancelFanout"}, {"-samples", "5"}, {"-trials", "0"}, {"-slowdowns", "x"},
		{"-slowdowns", "-10%"}, {"-benchtime", "never"}, {"-alpha", "0"}, {"extra"},
	} {
		if _, _, code := runCLI(t, append([]string{"calibrate"}, args...)...); code != 2 {
			t.Errorf("calibrate %q: exit %d, want 2", args, code)
		}
	}
}
