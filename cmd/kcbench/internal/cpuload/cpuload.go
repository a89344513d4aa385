// Package cpuload measures how busy the machine was with other work while
// kcbench measured: the CPU time that processes other than kcbench and its
// children used between Start and Stop. A benchmark shares its CPUs with
// that work, so a run on a busy machine has wider intervals and can drift;
// the gate and "kcbench run" print the figure next to their results.
//
// It needs Linux (the machine's CPU accounting in /proc/stat); elsewhere
// Start returns an error matching ErrUnsupported.
package cpuload

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrUnsupported reports an OS whose machine-wide CPU accounting this
// package cannot read.
var ErrUnsupported = errors.New("cpuload: machine CPU accounting is read from Linux's /proc/stat only")

// A Load is what a Meter measured between Start and Stop.
type Load struct {
	Elapsed time.Duration // wall time
	CPUs    int           // CPUs in the machine's accounting
	Busy    time.Duration // CPU time the machine's CPUs spent running anything (steal excluded)
	Steal   time.Duration // CPU time the hypervisor gave to other guests while this one wanted to run
	Own     time.Duration // CPU time of this process and of the children it waited for meanwhile
}

// Others returns the CPU time used by everything but this process and its
// waited-for children (never negative: the two accountings round
// differently).
func (l Load) Others() time.Duration { return max(0, l.Busy-l.Own) }

// OtherCPUs returns the average number of CPUs that other work kept busy.
func (l Load) OtherCPUs() float64 {
	if l.Elapsed <= 0 {
		return 0
	}
	return l.Others().Seconds() / l.Elapsed.Seconds()
}

// Noisy reports whether other work used a tenth of a CPU or more on
// average, or the hypervisor stole 5% or more of the CPUs' time: enough to
// widen the intervals of a measurement.
func (l Load) Noisy() bool {
	return l.OtherCPUs() >= 0.1 || l.stealShare() >= 0.05
}

// stealShare returns Steal as a share of the CPUs' time.
func (l Load) stealShare() float64 {
	if l.Elapsed <= 0 || l.CPUs <= 0 {
		return 0
	}
	return l.Steal.Seconds() / (l.Elapsed.Seconds() * float64(l.CPUs))
}

// String describes the load in one line, for example "other processes
// used 0.42 of 2 CPUs on average over 1m3s; steal 0.0%".
func (l Load) String() string {
	s := fmt.Sprintf("other processes used %.2f of %d CPUs on average over %s; steal %.1f%%",
		l.OtherCPUs(), l.CPUs, roundElapsed(l.Elapsed), 100*l.stealShare())
	if l.Noisy() {
		s += " (a busy machine: the intervals are wider than on a quiet one)"
	}
	return s
}

// roundElapsed rounds d to whole seconds, or to 10 ms (the accounting's
// tick) below 10 s.
func roundElapsed(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// A Meter measures the load from its Start to its Stop.
type Meter struct {
	start  time.Time
	before reading
}

// reading is one look at the accounting.
type reading struct {
	machine machineTimes
	own     time.Duration
}

// machineTimes are the machine-wide counters of /proc/stat's "cpu" line.
type machineTimes struct {
	busy, steal, cpus int64 // busy and steal in clock ticks
}

// Start begins a measurement.
func Start() (*Meter, error) {
	r, err := read()
	if err != nil {
		return nil, err
	}
	return &Meter{start: time.Now(), before: r}, nil
}

// Stop ends the measurement and returns the load. Children count as own
// work only once waited for, so stop after waiting for them.
func (m *Meter) Stop() (Load, error) {
	r, err := read()
	if err != nil {
		return Load{}, err
	}
	return Load{
		Elapsed: time.Since(m.start),
		CPUs:    int(r.machine.cpus),
		Busy:    ticks(r.machine.busy - m.before.machine.busy),
		Steal:   ticks(r.machine.steal - m.before.machine.steal),
		Own:     r.own - m.before.own,
	}, nil
}

// userHZ is the unit of /proc/stat's counters: USER_HZ, which the kernel
// fixes at 100 for user space on every architecture.
const userHZ = 100

func ticks(n int64) time.Duration { return time.Duration(n) * time.Second / userHZ }

// parseStat reads the machine's counters from the text of /proc/stat: the
// aggregate "cpu" line (user nice system idle iowait irq softirq steal
// guest guest_nice; guest time is already inside user and nice) and the
// number of "cpuN" lines.
func parseStat(text string) (machineTimes, error) {
	var t machineTimes
	found := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			t.cpus++
			continue
		}
		if len(f) < 9 {
			return t, fmt.Errorf("cpuload: /proc/stat cpu line has %d fields; want at least 9", len(f))
		}
		var v [8]int64
		for i := range v {
			n, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil {
				return t, fmt.Errorf("cpuload: /proc/stat cpu line: %w", err)
			}
			v[i] = n
		}
		// user nice system irq softirq; idle (3) and iowait (4) are not busy.
		t.busy = v[0] + v[1] + v[2] + v[5] + v[6]
		t.steal = v[7]
		found = true
	}
	if !found {
		return t, errors.New("cpuload: /proc/stat has no cpu line")
	}
	return t, nil
}
