package runner

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
)

// An Event describes one run of a benchmark or latency sampler.
type Event struct {
	Round, Rounds int    // the round, from 1; Rounds is 0 in a precision round (open-ended)
	Index, Total  int    // the run, from 1, of every run of every round
	Name          string // the benchmark
	ETA           time.Duration
	Took          time.Duration    // on Done: how long the run took, setup included
	Result        *benchfmt.Result // on Done: the result, nil on failure
	Err           error            // on Done: the failure
}

// A Reporter is told about the progress of Run.
type Reporter interface {
	Start(Event) // before a run
	Done(Event)  // after it
	Finish()     // after the last run
}

// A Converger is a Reporter that is also told, before every precision
// round (Config.Precision), which benchmarks are still wider than asked
// and how wide (half widths, fractions of the median); an empty list
// ends the precision rounds.
type Converger interface {
	Converging(round int, names []string, widths []float64)
}

// convergingLine describes a precision round.
func convergingLine(round int, names []string, widths []float64) string {
	if len(names) == 0 {
		return fmt.Sprintf("kcbench: precision round %d: every benchmark is precise enough", round)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "kcbench: precision round %d: %d still converging:", round, len(names))
	for i, n := range names {
		if i == 6 {
			b.WriteString(" ...")
			break
		}
		fmt.Fprintf(&b, " %s ±%.1f%%", n, 100*widths[i])
	}
	return b.String()
}

// NewReporter returns a Reporter writing to w: on a terminal, one
// progress line rewritten in place; otherwise one log line per finished
// run.
func NewReporter(w io.Writer, terminal bool) Reporter {
	if terminal {
		return &termReporter{w: w}
	}
	return &logReporter{w: w}
}

type logReporter struct{ w io.Writer }

func (r *logReporter) Start(Event) {}

func (r *logReporter) Done(ev Event) {
	fmt.Fprintf(r.w, "kcbench: round %s [%d/%d] %s: %s (took %s, ETA %s)\n",
		roundOf(ev), ev.Index, ev.Total, ev.Name, outcome(ev), ev.Took.Round(time.Millisecond), fmtETA(ev.ETA))
}

func (r *logReporter) Finish() {}

func (r *logReporter) Converging(round int, names []string, widths []float64) {
	fmt.Fprintln(r.w, convergingLine(round, names, widths))
}

func (r *termReporter) Converging(round int, names []string, widths []float64) {
	fmt.Fprintf(r.w, "\r\033[K%s\n", convergingLine(round, names, widths))
}

type termReporter struct{ w io.Writer }

func (r *termReporter) Start(ev Event) {
	fmt.Fprintf(r.w, "\r\033[Kround %s [%d/%d] %s (ETA %s)", roundOf(ev), ev.Index, ev.Total, ev.Name, fmtETA(ev.ETA))
}

func (r *termReporter) Done(ev Event) {
	if ev.Err != nil {
		fmt.Fprintf(r.w, "\r\033[K%s: FAILED: %v\n", ev.Name, ev.Err)
	}
}

func (r *termReporter) Finish() { fmt.Fprint(r.w, "\r\033[K") }

// roundOf is "3/10", or "12 (precision)" in a precision round.
func roundOf(ev Event) string {
	if ev.Rounds == 0 {
		return strconv.Itoa(ev.Round) + " (precision)"
	}
	return strconv.Itoa(ev.Round) + "/" + strconv.Itoa(ev.Rounds)
}

// outcome summarises a finished run.
func outcome(ev Event) string {
	if ev.Err != nil {
		return "FAILED: " + ev.Err.Error()
	}
	if ev.Result == nil || len(ev.Result.Values) == 0 {
		return "done"
	}
	v := ev.Result.Values[0]
	return strconv.FormatFloat(v.Value, 'f', -1, 64) + " " + v.Unit
}

// fmtETA rounds an ETA for display.
func fmtETA(d time.Duration) string {
	if d < 0 {
		return "?"
	}
	return d.Round(time.Second).String()
}

// eta estimates the time left: every remaining run of a task is assumed
// to take as long as that task's latest run, or the mean of all runs so
// far for a task not yet run.
type eta struct {
	last        []time.Duration // latest duration per task, 0 if not run
	left        []int           // runs left per task
	done, total int
	sum         time.Duration
}

func newETA(tasks, rounds int) *eta {
	e := &eta{last: make([]time.Duration, tasks), left: make([]int, tasks), total: tasks * rounds}
	for i := range e.left {
		e.left[i] = rounds
	}
	return e
}

// record notes that task i ran once and took d.
func (e *eta) record(i int, d time.Duration) {
	e.last[i] = d
	e.left[i]--
	e.done++
	e.sum += d
}

// extend adds one run of each of the tasks (a precision round).
func (e *eta) extend(tasks []int) {
	for _, i := range tasks {
		e.left[i]++
		e.total++
	}
}

// skip drops the remaining runs of a failed task i.
func (e *eta) skip(i int) {
	e.total -= e.left[i]
	e.left[i] = 0
}

// remaining estimates the time left; -1 when nothing has run yet.
func (e *eta) remaining() time.Duration {
	if e.done == 0 {
		return -1
	}
	mean := e.sum / time.Duration(e.done)
	var left time.Duration
	for i, n := range e.left {
		per := e.last[i]
		if per == 0 {
			per = mean
		}
		left += time.Duration(n) * per
	}
	return left
}
