package runner

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/kcbench/kcbench/perf"
)

// Isolation runs the benchmarks of each workload and size in a worker
// process of its own. A Go process keeps what its past benchmarks left
// behind: every goroutine it ever made stays on the runtime's list of
// goroutines, which each collection walks, and the heap a large benchmark
// grew is handed back to the OS only slowly, to be faulted in again by
// whatever allocates next. In one process, every benchmark after
// CancelFanout's hundred thousand tasks (or the conformance suite's ten
// thousand goroutines) pays for them, and an allocating one pays most: a
// floor row measured that way is not the floor. With Isolation, a worker
// only ever runs one workload's benchmarks, at one size, on every backend,
// so the rows compared with each other (a backend, the peers and the
// floor of one workload) share one history, and no other workload's.
// Rounds stay interleaved: Run sends each worker one benchmark at a time,
// in the order of the in-process run. A worker costs a process start at
// its group's first benchmark, and its memory until Run returns.
type Isolation struct {
	// Command returns the command that starts a worker: a process that
	// calls ServeWorker on its standard input and output (kcbench starts
	// itself with WorkerEnv set). The start of its standard error is kept
	// for the error message of a worker that dies (a panic's message
	// comes first, its stacks after). It must not be nil.
	Command func() *exec.Cmd
}

// WorkerEnv is the environment variable that tells a kcbench process to be
// a worker (ServeWorker) instead of running its command line.
const WorkerEnv = "KCBENCH_WORKER"

// ErrWorker reports a worker process that could not be started, broke the
// protocol or died; the benchmark it was running fails with it.
var ErrWorker = errors.New("benchmark worker failed")

// ServeWorker is a worker's main loop: it reads requests from in, one per
// line, runs each in this process and writes one line of answer to out,
// until in ends. A request is
//
//	bench <workload> <backend> <n> <benchtime>
//	latency <workload> <backend> <samples>
//
// and its answer "ok " and the result line in the Go benchmark format
// (without configuration lines), or "err " and a one-line message.
func ServeWorker(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	w := bufio.NewWriter(out)
	for sc.Scan() {
		res, err := serve(strings.Fields(sc.Text()))
		if err != nil {
			fmt.Fprintf(w, "err %s\n", strings.ReplaceAll(err.Error(), "\n", " | "))
		} else {
			var b bytes.Buffer
			bw := benchfmt.NewWriter(&b)
			if err := bw.Write(res); err != nil {
				return err
			}
			fmt.Fprintf(w, "ok %s", b.String())
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

// serve runs one request.
func serve(f []string) (*benchfmt.Result, error) {
	switch {
	case len(f) == 5 && f[0] == "bench":
		w, err := perf.Lookup(f[1])
		if err != nil {
			return nil, err
		}
		n, err := strconv.Atoi(f[3])
		if err != nil {
			return nil, fmt.Errorf("bad size %q", f[3])
		}
		res, _, err := runItem(Item{Workload: w, Backend: f[2], N: n}, f[4], nil)
		return res, err
	case len(f) == 4 && f[0] == "latency":
		k, err := strconv.Atoi(f[3])
		if err != nil || k < 1 {
			return nil, fmt.Errorf("bad sample count %q", f[3])
		}
		return sampleLatency(LatencyItem{Workload: f[1], Backend: f[2]}, k, nil)
	}
	return nil, fmt.Errorf("bad request %q", strings.Join(f, " "))
}

// workers runs the requests of Run on worker processes, one per group (a
// workload at one size), started on first use. A worker that dies is
// replaced by a fresh one at its group's next request. Only Run's
// goroutine uses it.
type workers struct {
	iso *Isolation
	by  map[string]*worker
}

// worker is one running worker process.
type worker struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *headBuffer
}

func newWorkers(iso *Isolation) *workers {
	return &workers{iso: iso, by: map[string]*worker{}}
}

// bench runs one measurement of it on its group's worker.
func (ws *workers) bench(it Item, benchtime string, config []benchfmt.Config) (*benchfmt.Result, Measurement, error) {
	req := fmt.Sprintf("bench %s %s %d %s", it.Workload.Name, it.Backend, it.N, benchtime)
	res, err := ws.request(it.Workload.Name, it.N, req, config)
	if err != nil {
		return nil, Measurement{}, err
	}
	m := Measurement{N: res.Iters}
	if v, ok := res.Value("ns/op"); ok {
		m.NsPerOp = v // rounded as the line has it, which is all nextBenchtime needs
	}
	return res, m, nil
}

// latency samples l on its workload's worker.
func (ws *workers) latency(l LatencyItem, samples int, config []benchfmt.Config) (*benchfmt.Result, error) {
	return ws.request(l.Workload, 0, fmt.Sprintf("latency %s %s %d", l.Workload, l.Backend, samples), config)
}

// request sends req to the worker of the group (workload, n), starting it
// if need be, and returns the result it answers, with config as its
// configuration.
func (ws *workers) request(workload string, n int, req string, config []benchfmt.Config) (*benchfmt.Result, error) {
	key := workload + "/n=" + strconv.Itoa(n)
	w := ws.by[key]
	if w == nil {
		var err error
		if w, err = ws.start(); err != nil {
			return nil, err
		}
		ws.by[key] = w
	}
	line, err := w.ask(req)
	if err != nil {
		delete(ws.by, key)
		return nil, w.died(err)
	}
	switch {
	case strings.HasPrefix(line, "err "):
		return nil, errors.New(strings.TrimPrefix(line, "err "))
	case strings.HasPrefix(line, "ok "):
		r := benchfmt.NewReader(strings.NewReader(strings.TrimPrefix(line, "ok ")), "worker")
		if r.Scan() {
			if res, ok := r.Result().(*benchfmt.Result); ok {
				res = res.Clone() // the reader reuses its result
				res.Config = slices.Clone(config)
				for i, v := range res.Values {
					if v.OrigUnit != "" { // as written, untidied, as runItem makes it
						res.Values[i] = benchfmt.Value{Value: v.OrigValue, Unit: v.OrigUnit}
					}
				}
				return res, nil
			}
		}
	}
	delete(ws.by, key)
	return nil, w.died(fmt.Errorf("answer %q to %q", line, req))
}

// start starts a worker process.
func (ws *workers) start() (*worker, error) {
	cmd := ws.iso.Command()
	w := &worker{cmd: cmd, stderr: &headBuffer{}}
	cmd.Stderr = w.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWorker, err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWorker, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: starting %s: %w", ErrWorker, cmd.Path, err)
	}
	w.in, w.out = in, bufio.NewReader(out)
	return w, nil
}

// ask writes one request line and reads the answer line.
func (w *worker) ask(req string) (string, error) {
	if _, err := io.WriteString(w.in, req+"\n"); err != nil {
		return "", err
	}
	line, err := w.out.ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(line, "\n"), nil
}

// died stops w (if it still runs) and returns the error of its failed
// request, with the start of its standard error.
func (w *worker) died(cause error) error {
	w.stop(time.Second)
	msg := strings.TrimSpace(w.stderr.String())
	if msg != "" {
		return fmt.Errorf("%w: %w; its stderr: %s", ErrWorker, cause, msg)
	}
	return fmt.Errorf("%w: %w", ErrWorker, cause)
}

// stop closes w's input, which ends ServeWorker, and waits for the
// process; one that has not exited after grace is killed. It reports an
// exit that was not clean.
func (w *worker) stop(grace time.Duration) error {
	w.in.Close()
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(grace):
		w.cmd.Process.Kill()
		<-done
		return fmt.Errorf("%w: killed after %v without exiting", ErrWorker, grace)
	}
}

// close stops every worker and returns their unclean exits, joined.
func (ws *workers) close() error {
	var errs []error
	for key, w := range ws.by {
		if err := w.stop(10 * time.Second); err != nil {
			errs = append(errs, fmt.Errorf("worker of %s: %w", key, err))
		}
	}
	clear(ws.by)
	return errors.Join(errs...)
}

// headBuffer keeps the first headMax bytes written to it and drops the
// rest. Safe for concurrent use (os/exec copies a child's stderr on a
// goroutine of its own).
type headBuffer struct {
	mu sync.Mutex
	b  []byte
}

const headMax = 4096

func (t *headBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p[:min(len(p), headMax-len(t.b))]...)
	return len(p), nil
}

func (t *headBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
