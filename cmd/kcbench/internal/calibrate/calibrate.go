// Package calibrate measures how well the regression gate separates
// noise from real slowdowns on a given measurement source: the
// statistics core of "kcbench calibrate", independent of the runtime.
//
// Each trial draws Samples values from side A and Samples from side B.
// The A/B pair is an A/A comparison when both sides measure the same
// thing: a "regressed" verdict on it is a false alarm. The same B values
// are then slowed down by each injected slowdown (multiplied by 1+s for
// lower-is-better units, divided by 1+s for rates) and judged again: a
// "regressed" verdict is a detection. Reusing one draw per trial for
// every slowdown keeps the cost of a trial at two samples, which matters
// when a sample is a real benchmark run.
//
// Verdicts come from the gate's own statistics (gate.Compare and
// gate.Decide: Mann-Whitney U test on the medians plus the -max-regress
// threshold). Family simulates the gate's Holm-Bonferroni correction: a
// trial's p-value is multiplied by Family, the strictest Holm step, as
// if the benchmark were one of Family comparisons.
package calibrate

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/gate"
)

// Errors reported by Run.
var (
	// ErrConfig reports an invalid Config.
	ErrConfig = errors.New("invalid calibration config")
	// ErrSampler wraps an error returned by a Sampler.
	ErrSampler = errors.New("sampler failed")
	// ErrShortSample reports a Sampler that returned the wrong number
	// of values.
	ErrShortSample = errors.New("sampler returned the wrong number of values")
)

// A Sampler returns n fresh measurements (for example n runs of a
// benchmark, in sec/op).
type Sampler func(n int) ([]float64, error)

// Config configures Run. Zero fields take the defaults of Defaults,
// except MaxRegress: zero is a real threshold there, as for the gate.
type Config struct {
	// Samples is the number of values per side in a trial; at least
	// gate.MinSamples.
	Samples int
	// Trials is the number of trials.
	Trials int
	// Alpha and MaxRegress are the gate's -alpha and -max-regress. A
	// zero MaxRegress is kept (any significant worsening is a
	// regression, as "kcbench gate -max-regress 0%" judges), not
	// replaced by Defaults' 5%.
	Alpha, MaxRegress float64
	// Family is the number of comparisons the gate makes in one run.
	Family int
	// Better is +1 when higher values are better, else lower values
	// are (the default, as for sec/op).
	Better int
	// Slowdowns are the injected slowdowns, as fractions (0.10 = 10%).
	Slowdowns []float64
	// MinDetection and MaxFalseAlarm define an acceptable gate: a
	// slowdown counts as detected when caught in at least MinDetection
	// of the trials, and only while the false-alarm rate is at most
	// MaxFalseAlarm.
	MinDetection, MaxFalseAlarm float64
}

// Defaults are the default Config: 10 samples a side, 200 trials, the
// gate's defaults (alpha 0.05, 5%, one comparison), slowdowns of 5%,
// 10%, 15%, 25% and 50%, detection >= 90% at <= 5% false alarms.
var Defaults = Config{
	Samples: 10, Trials: 200, Alpha: 0.05, MaxRegress: 0.05, Family: 1, Better: -1,
	Slowdowns:    []float64{0.05, 0.10, 0.15, 0.25, 0.50},
	MinDetection: 0.90, MaxFalseAlarm: 0.05,
}

// withDefaults fills the zero fields of c from Defaults, MaxRegress
// excepted.
func (c Config) withDefaults() Config {
	d := Defaults
	if c.Samples == 0 {
		c.Samples = d.Samples
	}
	if c.Trials == 0 {
		c.Trials = d.Trials
	}
	if c.Alpha == 0 {
		c.Alpha = d.Alpha
	}
	if c.Family == 0 {
		c.Family = d.Family
	}
	if c.Better == 0 {
		c.Better = d.Better
	}
	if len(c.Slowdowns) == 0 {
		c.Slowdowns = d.Slowdowns
	}
	if c.MinDetection == 0 {
		c.MinDetection = d.MinDetection
	}
	if c.MaxFalseAlarm == 0 {
		c.MaxFalseAlarm = d.MaxFalseAlarm
	}
	c.Slowdowns = slices.Sorted(slices.Values(c.Slowdowns))
	return c
}

// validate checks a defaulted Config.
func (c Config) validate() error {
	switch {
	case c.Samples < gate.MinSamples:
		return fmt.Errorf("%w: Samples %d < %d (the gate's minimum)", ErrConfig, c.Samples, gate.MinSamples)
	case c.Trials < 1:
		return fmt.Errorf("%w: Trials %d < 1", ErrConfig, c.Trials)
	case !(c.Alpha > 0 && c.Alpha <= 1):
		return fmt.Errorf("%w: Alpha %v not in (0, 1]", ErrConfig, c.Alpha)
	case c.MaxRegress < 0 || c.Family < 1:
		return fmt.Errorf("%w: MaxRegress %v < 0 or Family %d < 1", ErrConfig, c.MaxRegress, c.Family)
	case c.Slowdowns[0] <= 0:
		return fmt.Errorf("%w: slowdown %v <= 0", ErrConfig, c.Slowdowns[0])
	case !(c.MinDetection > 0 && c.MinDetection <= 1 && c.MaxFalseAlarm >= 0 && c.MaxFalseAlarm <= 1):
		return fmt.Errorf("%w: MinDetection %v or MaxFalseAlarm %v out of range", ErrConfig, c.MinDetection, c.MaxFalseAlarm)
	}
	// A trial is judged at the strictest Holm level of a family of
	// Family rows, Alpha/Family: samples that cannot reach it, however
	// far apart, make every trial blind, and the calibration pointless.
	if level := c.Alpha / float64(c.Family); gate.MinPU(c.Samples, c.Samples) > level {
		return fmt.Errorf("%w: %w: %d samples a side reach at best p = %.2g, above the gate's level %v/%d = %.2g, so no slowdown could be detected; need >= %d samples a side",
			ErrConfig, gate.ErrBlind, c.Samples, gate.MinPU(c.Samples, c.Samples), c.Alpha, c.Family, level, gate.SamplesFor(level))
	}
	return nil
}

// Check fills in c's defaults and reports, as an error wrapping
// ErrConfig, a Config that Run would refuse: one out of range, or one
// whose trials could detect nothing (also wrapping gate.ErrBlind).
func (c Config) Check() error {
	return c.withDefaults().validate()
}

// regressed reports whether the gate flags cur as a regression of base.
func (c Config) regressed(base, cur []float64) bool {
	cmp := gate.Compare(base, cur, c.Better)
	pAdj := min(1, cmp.P*float64(c.Family))
	return gate.Decide(cmp, pAdj, c.Alpha, c.MaxRegress) == gate.Regressed
}

// slow returns xs slowed down by s.
func (c Config) slow(xs []float64, s float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		if c.Better > 0 {
			out[i] = x / (1 + s)
		} else {
			out[i] = x * (1 + s)
		}
	}
	return out
}

// draw takes n values from sampler.
func draw(sampler Sampler, n int, side string) ([]float64, error) {
	xs, err := sampler(n)
	if err != nil {
		return nil, fmt.Errorf("side %s: %w: %w", side, ErrSampler, err)
	}
	if len(xs) != n {
		return nil, fmt.Errorf("side %s: %w: got %d, want %d", side, ErrShortSample, len(xs), n)
	}
	return xs, nil
}
