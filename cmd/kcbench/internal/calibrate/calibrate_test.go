package calibrate

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/gate"
)

// logNormal returns a deterministic sampler of log-normal values around
// median with the given log-scale standard deviation.
func logNormal(seed uint64, median, sigma float64) Sampler {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	return func(n int) ([]float64, error) {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = median * math.Exp(sigma*rng.NormFloat64())
		}
		return xs, nil
	}
}

// bimodal returns a sampler that is mostly around median but lands on
// a slow mode (2x) with probability p, like a benchmark disturbed by GC
// or a noisy neighbour.
func bimodal(seed uint64, median, p float64) Sampler {
	rng := rand.New(rand.NewPCG(seed, 0xb1))
	return func(n int) ([]float64, error) {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = median * math.Exp(0.01*rng.NormFloat64())
			if rng.Float64() < p {
				xs[i] *= 2
			}
		}
		return xs, nil
	}
}

func TestQuietSource(t *testing.T) {
	res, err := Run(logNormal(1, 300e-9, 0.01), logNormal(2, 300e-9, 0.01), Config{MaxRegress: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if res.FalseAlarmRate > 0.01 {
		t.Errorf("false alarms %.3f on a 1%%-noise A/A comparison, want ~0", res.FalseAlarmRate)
	}
	for _, s := range []float64{0.10, 0.25} {
		d, ok := res.Detection(s)
		if !ok || d.Rate < 0.99 {
			t.Errorf("slowdown %v detected at %v, want ~1", s, d.Rate)
		}
	}
	// 5% equals the threshold: caught about half the time at most.
	if d, _ := res.Detection(0.05); d.Rate > 0.8 {
		t.Errorf("5%% slowdown detected at %v; it equals the 5%% threshold", d.Rate)
	}
	if !res.Acceptable || res.Smallest != 0.10 {
		t.Errorf("smallest = %v acceptable = %v, want 0.10 true (%s)", res.Smallest, res.Acceptable, res.Summary())
	}
}

func TestNoisySource(t *testing.T) {
	// 15% noise hides a 10% slowdown in 10 samples but not a 50% one.
	res, err := Run(logNormal(3, 1e-6, 0.15), logNormal(4, 1e-6, 0.15), Config{Trials: 300})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := res.Detection(0.10); d.Rate >= 0.9 {
		t.Errorf("10%% under 15%% noise detected at %v, want < 0.9", d.Rate)
	}
	if d, _ := res.Detection(0.50); d.Rate < 0.9 {
		t.Errorf("50%% under 15%% noise detected at %v, want >= 0.9", d.Rate)
	}
	if res.FalseAlarmRate > 0.05 {
		t.Errorf("false alarms %v > 5%% with an unbiased A/A source", res.FalseAlarmRate)
	}
	if !res.Detectable || res.Smallest <= 0.10 {
		t.Errorf("smallest = %v, want above 0.10 (%s)", res.Smallest, res.Summary())
	}
}

func TestBiasedSideIsTooNoisy(t *testing.T) {
	// B is systematically 8% slower: the "A/A" comparison is not one,
	// and the gate rightly calls it a regression almost every time.
	res, err := Run(logNormal(5, 1e-6, 0.01), logNormal(6, 1.08e-6, 0.01), Config{Trials: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.FalseAlarmRate < 0.9 || res.Acceptable {
		t.Errorf("false alarms %v acceptable %v, want ~1 and false", res.FalseAlarmRate, res.Acceptable)
	}
	if !strings.HasPrefix(res.Summary(), "too noisy") {
		t.Errorf("summary %q", res.Summary())
	}
}

func TestHeavyTailAndFamily(t *testing.T) {
	a, b := bimodal(7, 1e-6, 0.2), bimodal(8, 1e-6, 0.2)
	single, err := Run(a, b, Config{Trials: 200})
	if err != nil {
		t.Fatal(err)
	}
	family, err := Run(bimodal(7, 1e-6, 0.2), bimodal(8, 1e-6, 0.2), Config{Trials: 200, Family: 100})
	if err != nil {
		t.Fatal(err)
	}
	// The same draws judged as one of 100 comparisons can only lose
	// detections.
	for i := range single.Detections {
		if family.Detections[i].Detected > single.Detections[i].Detected {
			t.Errorf("slowdown %v: family %d > single %d", single.Detections[i].Slowdown,
				family.Detections[i].Detected, single.Detections[i].Detected)
		}
	}
	if d, _ := family.Detection(0.10); d.Rate > 0.5 {
		t.Errorf("10%% among 100 comparisons detected at %v, want a clear loss of power", d.Rate)
	}
}

func TestHigherIsBetter(t *testing.T) {
	res, err := Run(logNormal(9, 1e6, 0.01), logNormal(10, 1e6, 0.01), Config{Better: +1, Trials: 50})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := res.Detection(0.25); d.Rate < 0.99 {
		t.Errorf("25%% throughput loss detected at %v", d.Rate)
	}
}

func TestErrors(t *testing.T) {
	ok := logNormal(11, 1, 0.01)
	boom := errors.New("boom")
	failing := func(int) ([]float64, error) { return nil, boom }
	short := func(n int) ([]float64, error) { return make([]float64, n-1), nil }
	for _, tc := range []struct {
		name string
		a, b Sampler
		cfg  Config
		want error
	}{
		{"few samples", ok, ok, Config{Samples: 5}, ErrConfig},
		{"negative trials", ok, ok, Config{Trials: -1}, ErrConfig},
		{"bad alpha", ok, ok, Config{Alpha: 2}, ErrConfig},
		{"bad slowdown", ok, ok, Config{Slowdowns: []float64{-0.1, 0.1}}, ErrConfig},
		{"sampler error", ok, failing, Config{Trials: 1}, boom},
		{"sampler error sentinel", failing, ok, Config{Trials: 1}, ErrSampler},
		{"short sample", ok, short, Config{Trials: 1}, ErrShortSample},
	} {
		if _, err := Run(tc.a, tc.b, tc.cfg); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestWriteText(t *testing.T) {
	res, err := Run(logNormal(12, 1, 0.01), logNormal(13, 1, 0.01), Config{Trials: 20, Slowdowns: []float64{0.25, 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{"20 trials", "slowdown +10%", "slowdown +25%", "detects slowdowns of 10% or more"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if strings.Index(out, "+10%") > strings.Index(out, "+25%") {
		t.Errorf("slowdowns not sorted:\n%s", out)
	}
}

func TestBootstrap(t *testing.T) {
	recorded, _ := logNormal(14, 300e-9, 0.02)(10)
	rng := rand.New(rand.NewPCG(15, 16))
	res, err := Run(Bootstrap(recorded, rng), Bootstrap(recorded, rng), Config{Trials: 100})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := res.Detection(0.25); d.Rate < 0.9 || res.FalseAlarmRate > 0.05 {
		t.Errorf("bootstrap of 2%% noise: 25%% detected at %v, %v false alarms", d.Rate, res.FalseAlarmRate)
	}
	xs, err := Bootstrap(recorded, rng)(50)
	if err != nil || len(xs) != 50 {
		t.Fatalf("Bootstrap(50) = %d values, %v", len(xs), err)
	}
	for _, x := range xs {
		if !slices.Contains(recorded, x) {
			t.Fatalf("Bootstrap drew %v, not a recorded value", x)
		}
	}
	if _, err := Run(Bootstrap(nil, rng), Bootstrap(recorded, rng), Config{Trials: 1}); !errors.Is(err, ErrConfig) {
		t.Errorf("Bootstrap(nil): err = %v, want ErrConfig", err)
	}
}

// A calibration whose trials could detect nothing is refused before any
// sample is drawn: 6 values a side reach at best p = 0.0022, above the
// gate's level 0.05/280; 8 a side reach it.
func TestConfigBlind(t *testing.T) {
	cfg := Config{Samples: 6, Trials: 1, Family: 280}
	err := cfg.Check()
	if !errors.Is(err, ErrConfig) || !errors.Is(err, gate.ErrBlind) || !strings.Contains(err.Error(), "need >= 8 samples a side") {
		t.Errorf("Check() = %v; want ErrConfig and gate.ErrBlind asking for 8 samples", err)
	}
	drew := false
	sampler := func(n int) ([]float64, error) { drew = true; return make([]float64, n), nil }
	if _, err := Run(sampler, sampler, cfg); !errors.Is(err, gate.ErrBlind) || drew {
		t.Errorf("Run: %v, drew %v; want gate.ErrBlind before drawing", err, drew)
	}
	cfg.Samples = 8
	if err := cfg.Check(); err != nil {
		t.Errorf("8 samples a side, family 280: %v", err)
	}
}

// An explicit MaxRegress of 0 is kept, as "kcbench gate -max-regress 0%"
// keeps it: a 3% slowdown that is significant in every trial is then
// detected every time, where a 5% threshold would never flag it.
func TestMaxRegressZero(t *testing.T) {
	i := 0
	sampler := func(n int) ([]float64, error) { // deterministic, very low noise
		out := make([]float64, n)
		for k := range out {
			i++
			out[k] = 100 + float64(i%5)*0.01
		}
		return out, nil
	}
	res, err := Run(sampler, sampler, Config{Samples: 10, Trials: 20, MaxRegress: 0, Family: 1, Slowdowns: []float64{0.03}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Config.MaxRegress != 0 {
		t.Errorf("MaxRegress 0 became %v", res.Config.MaxRegress)
	}
	if d, _ := res.Detection(0.03); d.Rate < 0.9 {
		t.Errorf("a 3%% slowdown, significant every time, detected in %.0f%% of trials at MaxRegress 0", 100*d.Rate)
	}
	res, err = Run(sampler, sampler, Config{Samples: 10, Trials: 20, MaxRegress: 0.05, Family: 1, Slowdowns: []float64{0.03}})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := res.Detection(0.03); d.Rate != 0 {
		t.Errorf("a 3%% slowdown detected in %.0f%% of trials at MaxRegress 5%%", 100*d.Rate)
	}
}

// constantBy returns a sampler of n values equal to v(trial), trial
// counting its calls from 0.
func constantBy(v func(trial int) float64) Sampler {
	trial := 0
	return func(n int) ([]float64, error) {
		xs := slices.Repeat([]float64{v(trial)}, n)
		trial++
		return xs, nil
	}
}

// Run's conclusions at their thresholds: a slowdown caught in exactly
// MinDetection of the trials is detectable, and a gate that detects no
// slowdown is not acceptable, however few its false alarms.
func TestRunThresholds(t *testing.T) {
	a := func() Sampler { return constantBy(func(int) float64 { return 100 }) }
	b := func() Sampler { // as fast as a, but 10x faster in the last trial: its slowed copy is no slower than a there
		return constantBy(func(trial int) float64 {
			if trial == 9 {
				return 10
			}
			return 100
		})
	}
	cfg := Config{Trials: 10, Samples: 10, MaxRegress: 0.05, Slowdowns: []float64{0.5}, MinDetection: 0.9, MaxFalseAlarm: 0.05}
	res, err := Run(a(), b(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := res.Detection(0.5); d.Rate != 0.9 || !res.Detectable || res.Smallest != 0.5 || !res.Acceptable {
		t.Errorf("+50%% caught in %v of the trials (MinDetection 0.9): detectable %v, smallest %v, acceptable %v; want detectable at 0.5, acceptable",
			d.Rate, res.Detectable, res.Smallest, res.Acceptable)
	}
	cfg.Slowdowns = []float64{0.001} // significant, but within MaxRegress: never a regression
	if res, err = Run(a(), b(), cfg); err != nil {
		t.Fatal(err)
	}
	if res.FalseAlarms != 0 || res.Detectable || res.Acceptable {
		t.Errorf("no slowdown detected, %d false alarms: detectable %v, acceptable %v; want neither", res.FalseAlarms, res.Detectable, res.Acceptable)
	}
}
