package calibrate

import (
	"fmt"
)

// RunInjected is Run with real slowdowns instead of simulated ones:
// slowed[i] samples what b samples, made slower by cfg.Slowdowns[i] (for
// example perf.NewSlowed with that slowdown), so cfg.Slowdowns must be
// given, one per sampler, in increasing order. Each trial draws Samples
// values from every sampler, interleaved one value at a time (a, b,
// slowed[0], ..., then again), so that drift of the machine during the
// trial hits every side alike. A "regressed" verdict of a against b is a
// false alarm; one of a against slowed[i] is a detection of slowdown i.
func RunInjected(a, b Sampler, slowed []Sampler, cfg Config) (*Result, error) {
	if len(cfg.Slowdowns) != len(slowed) {
		return nil, fmt.Errorf("%w: %d slowdowns for %d slowed samplers", ErrConfig, len(cfg.Slowdowns), len(slowed))
	}
	for i := 1; i < len(cfg.Slowdowns); i++ {
		if cfg.Slowdowns[i] <= cfg.Slowdowns[i-1] {
			return nil, fmt.Errorf("%w: slowdowns %v not in increasing order", ErrConfig, cfg.Slowdowns)
		}
	}
	res, err := newResult(cfg)
	if err != nil {
		return nil, err
	}
	cfg = res.Config
	samplers := append([]Sampler{a, b}, slowed...)
	names := []string{"A", "B"}
	for _, s := range cfg.Slowdowns {
		names = append(names, fmt.Sprintf("B+%g%%", 100*s))
	}
	for range cfg.Trials {
		xs, err := drawInterleaved(samplers, names, cfg.Samples)
		if err != nil {
			return nil, err
		}
		if cfg.regressed(xs[0], xs[1]) {
			res.FalseAlarms++
		}
		for i := range cfg.Slowdowns {
			if cfg.regressed(xs[0], xs[2+i]) {
				res.Detections[i].Detected++
			}
		}
	}
	res.finish()
	return res, nil
}

// drawInterleaved takes n values from every sampler, one value from each
// in turn.
func drawInterleaved(samplers []Sampler, names []string, n int) ([][]float64, error) {
	xs := make([][]float64, len(samplers))
	for range n {
		for i, s := range samplers {
			x, err := draw(s, 1, names[i])
			if err != nil {
				return nil, err
			}
			xs[i] = append(xs[i], x[0])
		}
	}
	return xs, nil
}
