package calibrate

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
)

// A Detection is the detection rate of one injected slowdown.
type Detection struct {
	// Slowdown is the injected slowdown (0.10 = 10%).
	Slowdown float64
	// Detected counts the trials the gate flagged as regressed.
	Detected int
	// Rate is Detected / Trials.
	Rate float64
}

// A Result is the outcome of Run.
type Result struct {
	// Config is the configuration used, defaults filled in.
	Config Config
	// FalseAlarms counts the A/A trials flagged as regressed;
	// FalseAlarmRate is FalseAlarms / Trials.
	FalseAlarms    int
	FalseAlarmRate float64
	// Detections has one entry per slowdown, in increasing order.
	Detections []Detection
	// Smallest is the smallest slowdown detected in at least
	// MinDetection of the trials, when Detectable.
	Smallest   float64
	Detectable bool
	// Acceptable reports that the false-alarm rate is at most
	// MaxFalseAlarm and some slowdown is Detectable: the gate can be
	// trusted to catch slowdowns of Smallest or more.
	Acceptable bool
}

// newResult fills in cfg's defaults, checks it, and returns an empty
// Result for it (one Detection per slowdown).
func newResult(cfg Config) (*Result, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	res := &Result{Config: cfg, Detections: make([]Detection, len(cfg.Slowdowns))}
	for i, s := range cfg.Slowdowns {
		res.Detections[i].Slowdown = s
	}
	return res, nil
}

// Run estimates the gate's false-alarm rate on A/A comparisons of a
// against b and its detection rate of each configured slowdown, and
// finds the smallest slowdown it detects reliably.
func Run(a, b Sampler, cfg Config) (*Result, error) {
	res, err := newResult(cfg)
	if err != nil {
		return nil, err
	}
	cfg = res.Config
	for range cfg.Trials {
		xa, err := draw(a, cfg.Samples, "A")
		if err != nil {
			return nil, err
		}
		xb, err := draw(b, cfg.Samples, "B")
		if err != nil {
			return nil, err
		}
		if cfg.regressed(xa, xb) {
			res.FalseAlarms++
		}
		for i, s := range cfg.Slowdowns {
			if cfg.regressed(xa, cfg.slow(xb, s)) {
				res.Detections[i].Detected++
			}
		}
	}
	res.finish()
	return res, nil
}

// finish computes the rates and the conclusion from the counts.
func (res *Result) finish() {
	cfg := res.Config
	trials := float64(cfg.Trials)
	res.FalseAlarmRate = float64(res.FalseAlarms) / trials
	for i := range res.Detections {
		d := &res.Detections[i]
		d.Rate = float64(d.Detected) / trials
		if !res.Detectable && d.Rate >= cfg.MinDetection {
			res.Smallest, res.Detectable = d.Slowdown, true
		}
	}
	res.Acceptable = res.Detectable && res.FalseAlarmRate <= cfg.MaxFalseAlarm
}

// Detection returns the detection rate of slowdown s, if it was tested.
func (r *Result) Detection(s float64) (Detection, bool) {
	for _, d := range r.Detections {
		if d.Slowdown == s {
			return d, true
		}
	}
	return Detection{}, false
}

// Summary returns a one-line conclusion.
func (r *Result) Summary() string {
	c := r.Config
	switch {
	case r.FalseAlarmRate > c.MaxFalseAlarm:
		return fmt.Sprintf("too noisy: %.1f%% false alarms on A/A comparisons (limit %.1f%%)",
			100*r.FalseAlarmRate, 100*c.MaxFalseAlarm)
	case !r.Detectable:
		return fmt.Sprintf("no tested slowdown is detected in >= %.0f%% of trials (%.1f%% false alarms)",
			100*c.MinDetection, 100*r.FalseAlarmRate)
	}
	return fmt.Sprintf("detects slowdowns of %.0f%% or more in >= %.0f%% of trials at %.1f%% false alarms",
		100*r.Smallest, 100*c.MinDetection, 100*r.FalseAlarmRate)
}

// WriteText writes the configuration, the false-alarm rate, one line per
// slowdown and the summary.
func (r *Result) WriteText(w io.Writer) error {
	c := r.Config
	_, err := fmt.Fprintf(w, "calibration: %d trials, %d samples a side, max regression %g%%, alpha %v, family %d\n"+
		"A/A false alarms: %d (%.1f%%)\n", c.Trials, c.Samples, 100*c.MaxRegress, c.Alpha, c.Family,
		r.FalseAlarms, 100*r.FalseAlarmRate)
	if err != nil {
		return err
	}
	for _, d := range r.Detections {
		if _, err := fmt.Fprintf(w, "slowdown +%g%%: detected %d (%.1f%%)\n", 100*d.Slowdown, d.Detected, 100*d.Rate); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintln(w, r.Summary())
	return err
}

// Bootstrap returns a Sampler that draws with replacement from recorded
// measurements (for example the -count runs of one benchmark in a
// results file), so that the gate can be calibrated on a workload's
// observed noise without running it again. rng makes it deterministic.
// It fails with ErrConfig on an empty slice.
func Bootstrap(values []float64, rng *rand.Rand) Sampler {
	recorded := slices.Clone(values)
	return func(n int) ([]float64, error) {
		if len(recorded) == 0 {
			return nil, fmt.Errorf("%w: no values to resample", ErrConfig)
		}
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = recorded[rng.IntN(len(recorded))]
		}
		return xs, nil
	}
}
