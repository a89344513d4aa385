//go:build ignore

// The A/B driver: a program that kcbench builds, from this file, against
// the code of each side of an A/B comparison (the base ref's worktree and
// the working tree) and runs as a long-lived child process, told over
// stdin which benchmark to run and for how long. It needs only the public
// API of package perf (Lookup, Workload.Bench, Workload.Run and
// SampleLatency) and module github.com/montanaflynn/stats, so that it
// builds against older versions of the module too.
//
// Protocol, one line each way:
//
//	-> (at start)              ready kcbench-abdriver/2 <go version> procs=<GOMAXPROCS> kcslow=<steps>|count|off
//	<- bench <name> <benchtime> <warm>
//	-> ok <N> <ns/op> <calls/op>  or  err <message>
//	<- latency <name> <samples>
//	-> ok <N> <p50> p50-ns <p90> p90-ns <p99> p99-ns <p99.9> p99.9-ns  or  err <message>
//	<- quit
//
// <name> is <Workload>/backend=<b>[/n=<k>], <benchtime> is go test's
// (a count "1000x" or a duration "10ms"), <warm> is the number of ops of
// an untimed warm-up run before the timed one (0 for none). <calls/op> is
// the number of kcslow injection points passed per op in a counting kcslow
// build, else 0. A latency request times <samples> single ops of the
// workload with perf.SampleLatency (its <name> has no /n=) and answers
// the nearest-rank percentiles of their durations in nanoseconds, value
// and unit as in a latency line of "kcbench run"'s results. Version 1 of
// the protocol had no latency request.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/montanaflynn/stats"

	"github.com/kcbench/kcbench/perf"
)

// bench is one resolved benchmark.
type bench struct {
	w       perf.Workload
	backend string
	n       int
	f       func(*testing.B)
}

func main() {
	testing.Init()
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(out, "ready kcbench-abdriver/2 %s procs=%d kcslow=%s\n", runtime.Version(), runtime.GOMAXPROCS(0), slowInfo())
	out.Flush()
	cache := map[string]*bench{}
	for in.Scan() {
		f := strings.Fields(in.Text())
		switch {
		case len(f) == 1 && f[0] == "quit":
			return
		case len(f) == 4 && f[0] == "bench":
			line, err := run(cache, f[1], f[2], f[3])
			if err != nil {
				line = "err " + strings.ReplaceAll(err.Error(), "\n", " ")
			}
			fmt.Fprintln(out, line)
		case len(f) == 3 && f[0] == "latency":
			line, err := latency(f[1], f[2])
			if err != nil {
				line = "err " + strings.ReplaceAll(err.Error(), "\n", " ")
			}
			fmt.Fprintln(out, line)
		default:
			fmt.Fprintf(out, "err malformed request %q\n", in.Text())
		}
		out.Flush()
	}
}

// run runs one request and returns its reply line.
func run(cache map[string]*bench, name, benchtime, warm string) (string, error) {
	b, err := resolve(cache, name)
	if err != nil {
		return "", err
	}
	w, err := strconv.Atoi(warm)
	if err != nil || w < 0 {
		return "", fmt.Errorf("bad warm-up count %q", warm)
	}
	if w > 0 {
		if err := b.w.Run(b.backend, b.n, w); err != nil {
			return "", fmt.Errorf("%s warm-up: %v", name, err)
		}
	}
	if err := flag.Set("test.benchtime", benchtime); err != nil {
		return "", fmt.Errorf("bad benchtime %q: %v", benchtime, err)
	}
	h0 := slowCalls()
	r := testing.Benchmark(b.f)
	if r.N <= 0 {
		// testing.Benchmark drops the failure message: find it untimed.
		if err := b.w.Run(b.backend, b.n, 1); err != nil {
			return "", fmt.Errorf("%s: %v", name, err)
		}
		return "", fmt.Errorf("%s: the benchmark failed", name)
	}
	// The calls include those of the 1-op run testing.Benchmark starts with.
	calls := float64(slowCalls()-h0) / float64(r.N+1)
	ns := float64(r.T.Nanoseconds()) / float64(r.N)
	return fmt.Sprintf("ok %d %g %g", r.N, ns, calls), nil
}

// resolve parses <Workload>/backend=<b>[/n=<k>] and caches its benchmark.
func resolve(cache map[string]*bench, name string) (*bench, error) {
	if b, ok := cache[name]; ok {
		return b, nil
	}
	parts := strings.Split(name, "/")
	if len(parts) < 2 || len(parts) > 3 || !strings.HasPrefix(parts[1], "backend=") {
		return nil, fmt.Errorf("bad benchmark name %q: want <Workload>/backend=<b>[/n=<k>]", name)
	}
	b := &bench{backend: strings.TrimPrefix(parts[1], "backend=")}
	if len(parts) == 3 {
		n, err := strconv.Atoi(strings.TrimPrefix(parts[2], "n="))
		if err != nil || !strings.HasPrefix(parts[2], "n=") {
			return nil, fmt.Errorf("bad size in %q", name)
		}
		b.n = n
	}
	var err error
	if b.w, err = perf.Lookup(parts[0]); err != nil {
		return nil, err
	}
	if b.f, err = b.w.Bench(b.backend, b.n); err != nil {
		return nil, err
	}
	cache[name] = b
	return b, nil
}

// percentiles are those of a latency answer, in order, with their units.
var percentiles = []struct {
	pct  float64
	unit string
}{{50, "p50-ns"}, {90, "p90-ns"}, {99, "p99-ns"}, {99.9, "p99.9-ns"}}

// latency runs one latency request and returns its reply line.
func latency(name, samples string) (string, error) {
	workload, backend, ok := strings.Cut(name, "/backend=")
	if !ok || strings.Contains(backend, "/") {
		return "", fmt.Errorf("bad latency name %q: want <Workload>/backend=<b>", name)
	}
	n, err := strconv.Atoi(samples)
	if err != nil {
		return "", fmt.Errorf("bad sample count %q", samples)
	}
	d, err := perf.SampleLatency(workload, backend, n)
	if err != nil {
		return "", err
	}
	ns := make(stats.Float64Data, len(d))
	for i, v := range d {
		ns[i] = float64(v.Nanoseconds())
	}
	line := fmt.Sprintf("ok %d", len(d))
	for _, p := range percentiles {
		v, err := stats.PercentileNearestRank(ns, p.pct)
		if err != nil {
			return "", fmt.Errorf("%s: percentile %v: %v", name, p.pct, err)
		}
		line += fmt.Sprintf(" %g %s", v, p.unit)
	}
	return line, nil
}
