package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/ab"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
)

// abFlags are the measuring flags of the A/B commands (gate -base and
// calibrate -ab).
type abFlags struct {
	count      int
	sample     time.Duration
	precision  percentFlag
	budget     time.Duration
	order      string
	discard    int
	respawn    int
	warm       float64
	fixedTime  bool
	gogc       string
	gomemlimit string
	cpus       string
	cpuList    []int // cpus parsed by config
}

// register adds the flags to fs with the given default rounds.
func (f *abFlags) register(fs *flag.FlagSet, rounds int) {
	fs.IntVar(&f.count, "count", rounds, "A/B: `rounds` per row (pairs per row, at least 1+log2(rows/alpha) for a regression to be detectable; with -precision, the minimum)")
	fs.DurationVar(&f.sample, "sample", 10*time.Millisecond, "A/B: length `d` of one sample (its op count is fixed per row by a first run)")
	fs.Var(&f.precision, "precision", "A/B: keep adding rounds to the rows whose 95% interval is wider than +-this `percentage` (with -budget)")
	fs.DurationVar(&f.budget, "budget", 0, "A/B: wall-time `limit` of the measuring; with -precision 0, run rounds until it is spent")
	fs.StringVar(&f.order, "order", "abba", "A/B: `order` of the two builds in the rounds: abba (alternating) or ab (fixed)")
	fs.IntVar(&f.discard, "discard", 0, "A/B: drop the first `n` rounds of every row")
	fs.IntVar(&f.respawn, "respawn", 1, "A/B: restart both builds' processes every `n` rounds (0: never), so that one process's memory layout cannot bias a whole run")
	fs.Float64Var(&f.warm, "warm", 0, "A/B: untimed warm-up before every sample, as a `fraction` of its ops (0 to 100)")
	fs.BoolVar(&f.fixedTime, "fixed-time", false, "A/B: every sample runs for -sample instead of a fixed op count")
	fs.StringVar(&f.gogc, "gogc", "", "A/B: GOGC `value` for both builds (default: inherited)")
	fs.StringVar(&f.gomemlimit, "gomemlimit", "", "A/B: GOMEMLIMIT `value` for both builds (default: inherited)")
	fs.StringVar(&f.cpus, "cpus", "", "A/B: run both builds on these CPUs, a comma-separated `list` (linux only; GOMAXPROCS follows)")
}

// config checks the flags and returns the engine configuration (without
// rows and sides) and the drivers' extra environment.
func (f *abFlags) config() (ab.Config, []string, error) {
	cfg := ab.Config{Rounds: f.count, SampleTime: f.sample, Precision: f.precision.v, Budget: f.budget,
		Discard: f.discard, Respawn: f.respawn, Warm: f.warm, FixedTime: f.fixedTime}
	switch f.order {
	case "abba":
		cfg.Order = ab.Alternate
	case "ab":
		cfg.Order = ab.Fixed
	default:
		return cfg, nil, usageError("-order %q: want abba or ab", f.order)
	}
	// -warm is checked from both sides, so that NaN fails; a huge
	// fraction would overflow the warm-up op count the drivers are sent.
	if err := checkBounds(
		bound{"count", f.count, f.count >= 1, "at least 1"},
		bound{"sample", f.sample, f.sample > 0, "a positive duration"},
		bound{"budget", f.budget, f.budget >= 0, "a duration of at least 0"},
		bound{"discard", f.discard, f.discard >= 0, "at least 0"},
		bound{"respawn", f.respawn, f.respawn >= 0, "at least 0"},
		bound{"warm", f.warm, f.warm >= 0 && f.warm <= ab.MaxWarm, fmt.Sprintf("a fraction of a sample's ops from 0 to %v", ab.MaxWarm)},
	); err != nil {
		return cfg, nil, err
	}
	if f.precision.v > 0 && f.budget == 0 {
		return cfg, nil, usageError("-precision needs a -budget (the most time to spend reaching it)")
	}
	if f.count-f.discard < paired.MinPairs {
		return cfg, nil, usageError("-count %d with -discard %d leaves %d pairs; the paired test needs at least %d", f.count, f.discard, f.count-f.discard, paired.MinPairs)
	}
	f.cpuList = nil
	if f.cpus != "" {
		for _, c := range strings.Split(f.cpus, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(c))
			if err != nil || n < 0 || n >= 1024 {
				return cfg, nil, usageError("-cpus %q: want a comma-separated list of CPU numbers", f.cpus)
			}
			f.cpuList = append(f.cpuList, n)
		}
	}
	var env []string
	for _, kv := range [][2]string{{"GOGC", f.gogc}, {"GOMEMLIMIT", f.gomemlimit}} {
		if strings.ContainsAny(kv[1], " \n=") {
			return cfg, nil, usageError("-%s %q: not a value", strings.ToLower(kv[0]), kv[1])
		}
		if kv[1] != "" {
			env = append(env, kv[0]+"="+kv[1])
		}
	}
	return cfg, env, nil
}

// orderName is the header's name of cfg's order.
func orderName(cfg ab.Config) string {
	if cfg.Order == ab.Fixed {
		return "AB"
	}
	return "ABBA"
}

// sampleName is the header's description of a sample.
func sampleName(cfg ab.Config) string {
	if cfg.FixedTime {
		return cfg.SampleTime.String() + " (fixed time)"
	}
	return cfg.SampleTime.String()
}

// abProgress returns a progress callback that writes one line to w when
// the set of converging rows changes, and every tenth round.
func abProgress(w io.Writer) func(ab.Progress) {
	last := -1
	return func(p ab.Progress) {
		if len(p.Converging) == last && p.Round%10 != 0 {
			return
		}
		last = len(p.Converging)
		var b strings.Builder
		fmt.Fprintf(&b, "round %d, %v: ", p.Round, p.Elapsed.Round(time.Second))
		if len(p.Converging) == 0 {
			b.WriteString("done")
		} else {
			fmt.Fprintf(&b, "%d rows converging", len(p.Converging))
			for i, name := range p.Converging {
				if i == 4 {
					fmt.Fprintf(&b, ", ...")
					break
				}
				if w := p.Widths[i]; w < 1e9 {
					fmt.Fprintf(&b, ", %s ±%.1f%%", name, 100*w)
				} else {
					fmt.Fprintf(&b, ", %s", name)
				}
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

// startDrivers starts one driver per executable, labelled, with env, on
// cpus (all when empty). On an error it closes those already started.
func startDrivers(paths, labels []string, env []string, cpus []int) ([]*ab.Driver, error) {
	var ds []*ab.Driver
	for i, p := range paths {
		d, err := ab.StartOn(p, labels[i], env, cpus)
		if err != nil {
			closeDrivers(ds)
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// closeDrivers closes every driver.
func closeDrivers(ds []*ab.Driver) {
	for _, d := range ds {
		d.Close()
	}
}

// tempDir makes a temporary directory for driver executables.
func tempDir() (string, func(), error) {
	dir, err := os.MkdirTemp("", "kcbench-ab-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
