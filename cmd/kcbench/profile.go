package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/plot"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/profiles"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/runner"
	"github.com/kcbench/kcbench/perf"
)

func init() {
	register(&command{
		name:     "profile",
		synopsis: "-bench name -backend name [-vs name] [-n size] [-benchtime d] [-o dir]",
		summary:  "CPU, heap, mutex and block profiles of one workload on one backend",
		doc: `Profile runs one workload (-bench, an exact workload name) on one backend
or peer (-backend) and writes its profiles into the output directory:

  <name>.cpu.pprof    CPU profile of a -benchtime run
  <name>.heap.pprof   heap profile (-sample_index=alloc_space shows what
                      the benchmark allocated)
  <name>.mutex.pprof  mutex contention, every event recorded
  <name>.block.pprof  blocking events, every event recorded

where <name> is <workload>[-n<size>]-<backend>. The CPU profile comes from
its own run; the others from a second run with mutex and block profiling
on. With -vs other, it also profiles the workload on the other backend
and writes <workload>[-n<size>]-<backend>-vs-<other>.cpu.pprof: the CPU
profile of -backend minus that of -vs scaled to the same number of
operations, so positive values are where -backend spends more. Open any
of them with "go tool pprof -top <file>" (or -http=:8080).

The profiles cover the whole run, the workload's untimed setup included
(runtime/pprof cannot pause a profile); profile prints the share of the
run that the benchmark timed. Where that share is small (CancelFanout
and WaitersStorm time only the wake, not the parking before it), most
of the profile is setup: look at the frames under the timed call.

A sized workload runs at -n (default: its smallest size).

Exit status: 0 on success; 1 if a benchmark or profile fails; 2 on a
usage error, such as an unknown workload or backend (the error lists the
known names).`,
		run: runProfile,
	})
}

// runProfile implements "kcbench profile".
func runProfile(stdout, stderr io.Writer, args []string) error {
	c, _ := lookup("profile")
	fs := c.flagSet(stderr)
	bench := fs.String("bench", "", "workload `name` (required)")
	backend := fs.String("backend", "", "backend or peer `name` (required)")
	vs := fs.String("vs", "", "also write the CPU profile difference against this backend or peer `name`")
	n := fs.Int("n", 0, "`size` of a sized workload (default: its smallest)")
	benchtime := fs.String("benchtime", "1s", "profile a run of `d` (a duration, or Nx iterations)")
	dir := fs.String("o", filepath.Join("reports", "latest", "profiles"), "output `directory`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 0:
		fs.Usage()
		return usageError("profile takes no arguments, got %q", fs.Args())
	case *bench == "" || *backend == "":
		fs.Usage()
		return usageError("profile needs -bench and -backend (workloads: %s)", knownWorkloads())
	}
	if err := runner.ParseBenchtime(*benchtime); err != nil {
		return usageError("-benchtime: %w", err)
	}
	w, err := perf.Lookup(*bench)
	if err != nil {
		return usageError("-bench: %w", err)
	}
	if *n == 0 && w.Sizes != nil {
		*n = w.Sizes[0]
	}
	fa, err := w.Bench(*backend, *n)
	if err != nil {
		return usageError("%s: %w", badFlag(err, "-backend"), err)
	}
	fb := fa
	if *vs != "" {
		if fb, err = w.Bench(*vs, *n); err != nil {
			return usageError("%s: %w", badFlag(err, "-vs"), err)
		}
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	base := profileBase(w.Name, *n)
	setA, err := profiles.Record(fa, *benchtime)
	if err != nil {
		return fmt.Errorf("%s on %s: %w", w.Name, *backend, err)
	}
	written, err := writeProfiles(*dir, base+"-"+plot.FileBase(*backend), setA)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "kcbench profile: %s on %s: %.2f ns/op over %d ops; %s\n", w.Name, *backend, setA.CPURun.NsPerOp, setA.CPURun.N, timedShare(setA))
	if *vs != "" {
		path, err := profileDiff(stderr, *dir, base, *backend, *vs, fb, setA, *benchtime)
		if err != nil {
			return err
		}
		written = append(written, path)
	}
	for _, p := range written {
		fmt.Fprintln(stdout, p)
	}
	return nil
}

// profileDiff profiles fb (the -vs backend) and writes the CPU difference
// of setA against it.
func profileDiff(stderr io.Writer, dir, base, backend, vs string, fb func(*testing.B), setA *profiles.Set, benchtime string) (string, error) {
	setB, err := profiles.Record(fb, benchtime)
	if err != nil {
		return "", fmt.Errorf("on %s: %w", vs, err)
	}
	fmt.Fprintf(stderr, "kcbench profile: on %s: %.2f ns/op over %d ops; %s\n", vs, setB.CPURun.NsPerOp, setB.CPURun.N, timedShare(setB))
	diff, err := profiles.DiffCPU(setA.Profiles["cpu"], setB.Profiles["cpu"], setA.CPURun.N, setB.CPURun.N)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, base+"-"+plot.FileBase(backend)+"-vs-"+plot.FileBase(vs)+".cpu.pprof")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := diff.Write(f); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

// timedShare says how much of the CPU-profiled run the benchmark timed.
func timedShare(s *profiles.Set) string {
	return fmt.Sprintf("the timed part is %.0f%% of the profiled %v (the rest is untimed setup)",
		100*s.TimedShare(), s.CPURun.Wall.Round(time.Millisecond))
}

// writeProfiles writes every profile of s as <dir>/<name>.<kind>.pprof.
func writeProfiles(dir, name string, s *profiles.Set) ([]string, error) {
	var written []string
	for _, kind := range profiles.Kinds {
		path := filepath.Join(dir, name+"."+kind+".pprof")
		if err := os.WriteFile(path, s.Profiles[kind], 0o644); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

// badFlag names the flag that err, from Workload.Bench, is about: -n for a
// bad size (perf.ErrBadArgument), else the flag that named the backend.
func badFlag(err error, backendFlag string) string {
	if errors.Is(err, perf.ErrBadArgument) {
		return "-n"
	}
	return backendFlag
}

// profileBase is the file name stem of a workload at size n.
func profileBase(workload string, n int) string {
	if n > 0 {
		return plot.FileBase(workload) + "-n" + strconv.Itoa(n)
	}
	return plot.FileBase(workload)
}

// knownWorkloads lists the workload names.
func knownWorkloads() string {
	return strings.Join(perf.Names(), ", ")
}
