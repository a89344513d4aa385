package ab

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
)

// A Driver is one running driver process. Its methods must be called
// from one goroutine at a time; the process runs one benchmark at a time.
type Driver struct {
	// Label names the side in errors and progress ("base", "head").
	Label string
	// Info is the driver's ready line after "ready ": protocol, Go
	// version and kcslow setting.
	Info string
	// Proto is the version of the protocol the driver speaks (the n of
	// its greeting's kcbench-abdriver/n): 1 or Protocol.
	Proto int

	path   string   // the executable, for Restart
	env    []string // the extra environment, for Restart
	cpus   []int    // the CPU affinity, for Restart
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // the driver's stdout, one line at a time; closed at EOF
	wait   chan error  // the process's exit status, once
	stderr *strings.Builder
}

// A Sample is one timed run of a benchmark.
type Sample struct {
	N       int     // ops timed
	NsPerOp float64 // ns per op
	Calls   float64 // kcslow injection points passed per op (counting builds only)
}

// A LatencySample is the answer to one latency request.
type LatencySample struct {
	N int // single ops timed
	// Values are the percentiles of their durations, in the driver's
	// order and units (p50-ns, p90-ns, p99-ns, p99.9-ns).
	Values []benchfmt.Value
}

// Protocol is the version of the driver protocol that the driver source
// speaks (see driver/main.go): version 1 had only the bench request, 2
// adds the latency request.
const Protocol = 2

// startTimeout bounds how long a driver may take to say it is ready.
const startTimeout = 30 * time.Second

// Start starts the driver executable path with env added to the
// environment and waits for its ready line.
func Start(path, label string, env []string) (*Driver, error) {
	return StartOn(path, label, env, nil)
}

// StartOn is Start with the process's CPU affinity set to cpus (when not
// empty; linux only, else an error matching ErrAffinity). The Go runtime
// of the driver then also takes GOMAXPROCS from that set: a GOMAXPROCS in
// this process's environment is not passed on (one in env still is).
func StartOn(path, label string, env []string, cpus []int) (*Driver, error) {
	cmd := exec.Command(path)
	cmd.Env = os.Environ()
	if len(cpus) > 0 {
		cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "GOMAXPROCS=") })
	}
	cmd.Env = append(cmd.Env, env...)
	d := &Driver{Label: label, path: path, env: env, cpus: cpus, cmd: cmd, lines: make(chan string, 1), wait: make(chan error, 1), stderr: new(strings.Builder)}
	cmd.Stderr = &limitedWriter{b: d.stderr, left: 16 << 10}
	var err error
	if d.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := startProcess(cmd, cpus); err != nil {
		return nil, fmt.Errorf("%w: starting %s driver: %w", ErrDriver, label, err)
	}
	// The reader goroutine ends at EOF, which Close (or the process's
	// death) brings; then it reaps the process.
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
		close(d.lines)
		d.wait <- cmd.Wait()
	}()
	line, err := d.read(startTimeout)
	if err != nil {
		return nil, err
	}
	info, ok := strings.CutPrefix(line, "ready ")
	proto, _, _ := strings.Cut(info, " ")
	switch {
	case !ok || !strings.HasPrefix(proto, "kcbench-abdriver/"):
		d.kill()
		return nil, fmt.Errorf("%w: %s driver: unexpected greeting %q", ErrDriver, label, line)
	case proto == "kcbench-abdriver/1":
		d.Proto = 1
	case proto == "kcbench-abdriver/"+strconv.Itoa(Protocol):
		d.Proto = Protocol
	default:
		d.kill()
		return nil, fmt.Errorf("%w: %s driver %s speaks %s; this kcbench speaks kcbench-abdriver/1 and /%d", ErrDriver, label, path, proto, Protocol)
	}
	d.Info = info
	return d, nil
}

// read returns the next line, or an error when the driver exits or takes
// longer than timeout (the driver is then killed).
func (d *Driver) read(timeout time.Duration) (string, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case line, ok := <-d.lines:
		if ok {
			return line, nil
		}
		err := <-d.wait
		d.wait <- err
		return "", fmt.Errorf("%w: %s driver exited (%v): %s", ErrDriver, d.Label, err, strings.TrimSpace(d.stderr.String()))
	case <-t.C:
		d.kill()
		return "", fmt.Errorf("%w: %s driver: no answer within %v", ErrDriver, d.Label, timeout)
	}
}

// Bench runs the benchmark name for benchtime (go test's syntax: "1000x"
// or "10ms"), after an untimed warm-up of warm ops when warm > 0. The
// watchdog is generous: a minute plus ten times a duration benchtime.
func (d *Driver) Bench(name, benchtime string, warm int) (Sample, error) {
	if strings.ContainsAny(name, " \n") || strings.ContainsAny(benchtime, " \n") {
		return Sample{}, fmt.Errorf("%w: bad request %q %q", ErrDriver, name, benchtime)
	}
	if _, err := fmt.Fprintf(d.stdin, "bench %s %s %d\n", name, benchtime, warm); err != nil {
		return Sample{}, fmt.Errorf("%w: %s driver: %w", ErrDriver, d.Label, err)
	}
	timeout := time.Minute
	if dur, err := time.ParseDuration(benchtime); err == nil {
		timeout += 10 * dur
	}
	line, err := d.read(timeout)
	if err != nil {
		return Sample{}, err
	}
	if msg, ok := strings.CutPrefix(line, "err "); ok {
		return Sample{}, fmt.Errorf("%s (%s build): %s", name, d.Label, msg)
	}
	f := strings.Fields(line)
	if len(f) != 4 || f[0] != "ok" {
		return Sample{}, fmt.Errorf("%w: %s driver: malformed answer %q", ErrDriver, d.Label, line)
	}
	var s Sample
	var e1, e2, e3 error
	s.N, e1 = strconv.Atoi(f[1])
	s.NsPerOp, e2 = strconv.ParseFloat(f[2], 64)
	s.Calls, e3 = strconv.ParseFloat(f[3], 64)
	if err := errors.Join(e1, e2, e3); err != nil || s.N < 1 || !(s.NsPerOp > 0) {
		return Sample{}, fmt.Errorf("%w: %s driver: malformed answer %q", ErrDriver, d.Label, line)
	}
	return s, nil
}

// Latency times samples single ops of the benchmark name
// (<Workload>/backend=<b>, a workload of perf.LatencyWorkloads) in the
// driver with perf.SampleLatency and returns their percentiles. A driver
// of protocol version 1 has no latency request: the error then matches
// ErrNoLatency, and nothing is sent. The watchdog allows a minute plus a
// millisecond an op.
func (d *Driver) Latency(name string, samples int) (LatencySample, error) {
	if d.Proto < 2 {
		return LatencySample{}, fmt.Errorf("%w: %s driver speaks kcbench-abdriver/%d", ErrNoLatency, d.Label, d.Proto)
	}
	if strings.ContainsAny(name, " \n") {
		return LatencySample{}, fmt.Errorf("%w: bad request %q", ErrDriver, name)
	}
	if _, err := fmt.Fprintf(d.stdin, "latency %s %d\n", name, samples); err != nil {
		return LatencySample{}, fmt.Errorf("%w: %s driver: %w", ErrDriver, d.Label, err)
	}
	line, err := d.read(time.Minute + time.Duration(max(samples, 0))*time.Millisecond)
	if err != nil {
		return LatencySample{}, err
	}
	if msg, ok := strings.CutPrefix(line, "err "); ok {
		return LatencySample{}, fmt.Errorf("latency of %s (%s build): %s", name, d.Label, msg)
	}
	f := strings.Fields(line)
	bad := fmt.Errorf("%w: %s driver: malformed answer %q", ErrDriver, d.Label, line)
	if len(f) < 4 || len(f)%2 != 0 || f[0] != "ok" {
		return LatencySample{}, bad
	}
	var s LatencySample
	if s.N, err = strconv.Atoi(f[1]); err != nil || s.N < 1 {
		return LatencySample{}, bad
	}
	for i := 2; i < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil || !(v > 0) || math.IsInf(v, 1) {
			return LatencySample{}, bad
		}
		s.Values = append(s.Values, benchfmt.Value{Value: v, Unit: f[i+1]})
	}
	return s, nil
}

// Close asks the driver to quit and waits for it (killing it after five
// seconds). It is safe to call more than once.
func (d *Driver) Close() error {
	if d.stdin == nil {
		return nil
	}
	fmt.Fprintln(d.stdin, "quit")
	d.stdin.Close()
	d.stdin = nil
	for {
		select {
		case _, ok := <-d.lines:
			if ok {
				continue
			}
			err := <-d.wait
			d.wait <- err
			return err
		case <-time.After(5 * time.Second):
			d.kill()
			return fmt.Errorf("%w: %s driver did not quit", ErrDriver, d.Label)
		}
	}
}

// Restart closes the driver's process and starts a fresh one of the same
// executable: a new address space, so a bias that comes from one
// process's memory layout (ASLR, heap and stack alignment) does not last
// for the whole comparison.
func (d *Driver) Restart() error {
	if err := d.Close(); err != nil {
		return err
	}
	n, err := StartOn(d.path, d.Label, d.env, d.cpus)
	if err != nil {
		return err
	}
	*d = *n
	return nil
}

// kill ends the process; the reader goroutine then sees EOF and reaps it.
func (d *Driver) kill() {
	if d.cmd.Process != nil {
		d.cmd.Process.Kill()
	}
}

// limitedWriter keeps the first left bytes written to it.
type limitedWriter struct {
	b    *strings.Builder
	left int
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	n := min(len(p), w.left)
	w.b.Write(p[:n])
	w.left -= n
	return len(p), nil
}
