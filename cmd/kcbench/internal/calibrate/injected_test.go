package calibrate

import (
	"errors"
	"testing"
)

func TestRunInjected(t *testing.T) {
	const median = 400e-9
	cfg := Config{Trials: 100, MaxRegress: 0.05, Slowdowns: []float64{0.01, 0.25}}
	res, err := RunInjected(logNormal(1, median, 0.01), logNormal(2, median, 0.01),
		[]Sampler{logNormal(3, median*1.01, 0.01), logNormal(4, median*1.25, 0.01)}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.FalseAlarmRate > 0.02 {
		t.Errorf("false alarms %.2f on a quiet A/A comparison", res.FalseAlarmRate)
	}
	if d, _ := res.Detection(0.25); d.Rate < 0.99 {
		t.Errorf("a real 25%% slowdown detected at %.2f", d.Rate)
	}
	if d, _ := res.Detection(0.01); d.Rate > 0.01 {
		t.Errorf("a 1%% slowdown, under the 5%% threshold, flagged at %.2f", d.Rate)
	}
	if !res.Acceptable || res.Smallest != 0.25 {
		t.Errorf("Acceptable %v Smallest %v; want true, 0.25", res.Acceptable, res.Smallest)
	}
}

// Each trial must take its values interleaved: A, B, slowed, A, B, ...
func TestRunInjectedInterleaves(t *testing.T) {
	var order []string
	rec := func(name string) Sampler {
		return func(n int) ([]float64, error) {
			if n != 1 {
				t.Errorf("sampler %s asked for %d values at once", name, n)
			}
			order = append(order, name)
			return []float64{1}, nil
		}
	}
	_, err := RunInjected(rec("a"), rec("b"), []Sampler{rec("s")}, Config{Trials: 1, Samples: 6, Slowdowns: []float64{0.1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 18 || order[0] != "a" || order[1] != "b" || order[2] != "s" || order[3] != "a" {
		t.Errorf("draw order %v; want a b s repeated 6 times", order)
	}
}

func TestRunInjectedBadConfig(t *testing.T) {
	q := logNormal(1, 1, 0.01)
	for name, c := range map[string]struct {
		slowed []Sampler
		cfg    Config
	}{
		"count mismatch": {[]Sampler{q}, Config{Slowdowns: []float64{0.1, 0.2}}},
		"no slowdowns":   {[]Sampler{q}, Config{}},
		"unsorted":       {[]Sampler{q, q}, Config{Slowdowns: []float64{0.2, 0.1}}},
		"few samples":    {[]Sampler{q}, Config{Samples: 3, Slowdowns: []float64{0.1}}},
	} {
		if _, err := RunInjected(q, q, c.slowed, c.cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
	failing := func(int) ([]float64, error) { return nil, errors.New("boom") }
	if _, err := RunInjected(q, failing, []Sampler{q}, Config{Slowdowns: []float64{0.1}}); !errors.Is(err, ErrSampler) {
		t.Errorf("failing sampler: err = %v, want ErrSampler", err)
	}
}
