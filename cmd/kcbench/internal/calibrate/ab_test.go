package calibrate

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
)

// synthPairs returns n pairs around 100 with a drift shared by each pair
// and 3% independent noise, B scaled by ratio.
func synthPairs(rng *rand.Rand, ratio float64, n int) []paired.Pair {
	out := make([]paired.Pair, n)
	for i := range out {
		drift := 1 + rng.Float64() // up to 2x, shared by the pair
		out[i] = paired.Pair{A: 100 * drift * (1 + 0.03*rng.NormFloat64()), B: 100 * drift * ratio * (1 + 0.03*rng.NormFloat64())}
	}
	return out
}

func TestJudgeABAndNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rows := []string{"JobCreate/backend=stealing", "ChanPingPong/backend=stealing"}
	setup := []ABRowSetup{{Name: rows[0], BaseNs: 300, CallsPerOp: 1, StepNs: 1.5, Steps: []int{20}}, {Name: rows[1]}}
	var trials []ABTrial
	for range 20 {
		tr := ABTrial{AA: [][]paired.Pair{synthPairs(rng, 1, 40), synthPairs(rng, 1, 40)},
			Slowed: [][][]paired.Pair{{synthPairs(rng, 1.2, 40), synthPairs(rng, 1.2, 40)}}}
		trials = append(trials, tr)
	}
	res := JudgeAB(setup, []float64{0.2}, trials, paired.Options{Alpha: 0.05, MaxRegress: 0.05, Confidence: 0.95})
	if res.FalseAlarms > 1 {
		t.Errorf("%d A/A false alarms in 20 trials of identical synthetic sides", res.FalseAlarms)
	}
	d := res.Detections[0]
	if d.Detected != 40 || d.Rate != 1 {
		t.Errorf("+20%% with 3%% noise: detected %d of 40", d.Detected)
	}
	for _, rd := range d.Rows {
		if math.Abs(rd.Measured-1.2) > 0.02 {
			t.Errorf("%s: measured ratio %v; want about 1.2", rd.Name, rd.Measured)
		}
	}
	if !res.Acceptable(0.05, 0.9) {
		t.Error("not acceptable")
	}
	res.Noise = Noise(rows, trials)
	for _, n := range res.Noise {
		if !(n.Q1 < 1 && n.Q3 > 1) || n.N != 800 {
			t.Errorf("%s: A/A quartiles %v-%v of %d pairs", n.Name, n.Q1, n.Q3, n.N)
		}
		for _, e := range n.Estimators {
			if math.Abs(e.Shift-math.Log(1.2)) > 0.03 || e.SD <= 0 || e.Z < 5 {
				t.Errorf("%s %s: shift %v (want about %v), sd %v, z %v", n.Name, e.Name, e.Shift, math.Log(1.2), e.SD, e.Z)
			}
		}
	}
	var text, js bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"row JobCreate/backend=stealing: base 300.0 ns/op, 1.00 injection calls/op, 1.50 ns a step, steps per call [20]",
		"A/A false alarms: ", "slowdown +20%: detected 40 (100.0%)",
		"  JobCreate/backend=stealing: detected 20 of 20 (100.0%), measured ratio 1.",
		"noise ChanPingPong/backend=stealing: A/A pair ratios IQR ",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "row ChanPingPong") {
		t.Errorf("a row without setup printed a setup line:\n%s", text.String())
	}
	if err := res.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"false_alarm_rate"`) {
		t.Errorf("json: %v\n%s", err, js.String())
	}
	aaOnly := JudgeAB(setup, nil, trials, paired.Options{Alpha: 0.05, MaxRegress: 0.05})
	if len(aaOnly.Detections) != 0 || !aaOnly.Acceptable(0.05, 0.9) {
		t.Errorf("A/A only: %+v", aaOnly)
	}
}

// CheckTrials refuses trials that JudgeAB and Noise would index out of
// range: one list of pairs per row in AA and in every slowdown's Slowed.
func TestCheckTrials(t *testing.T) {
	p := synthPairs(rand.New(rand.NewPCG(3, 4)), 1, 8)
	rows := []string{"X", "Y"}
	good := ABTrial{AA: [][]paired.Pair{p, p}, Slowed: [][][]paired.Pair{{p, p}}}
	if err := CheckTrials(rows, []float64{0.1}, []ABTrial{good, good}); err != nil {
		t.Errorf("well-formed trials: %v", err)
	}
	for name, tc := range map[string]struct {
		slowdowns []float64
		trials    []ABTrial
	}{
		"AA short":             {nil, []ABTrial{{AA: [][]paired.Pair{p}}}},
		"AA long":              {nil, []ABTrial{{AA: [][]paired.Pair{p, p, p}}}},
		"no slowed":            {[]float64{0.1}, []ABTrial{{AA: [][]paired.Pair{p, p}}}},
		"slowed short":         {[]float64{0.1}, []ABTrial{good, {AA: [][]paired.Pair{p, p}, Slowed: [][][]paired.Pair{{p}}}}},
		"slowed without slows": {nil, []ABTrial{good}},
		"negative slowdown":    {[]float64{-0.1}, []ABTrial{good}},
		"infinite slowdown":    {[]float64{math.Inf(1)}, []ABTrial{good}},
	} {
		if err := CheckTrials(rows, tc.slowdowns, tc.trials); !errors.Is(err, ErrTrialShape) {
			t.Errorf("%s: %v; want ErrTrialShape", name, err)
		}
	}
}

// sure returns n pairs whose verdict is certain: B is A times ratio, A
// spread so that no two log ratios tie; ratio 1 gives ratios alternately
// 1% above and below 1 (no change).
func sure(n int, ratio float64) []paired.Pair {
	out := make([]paired.Pair, n)
	for i := range out {
		a := 100 * (1 + float64(i)/10)
		r := ratio * (1 + 1e-4*float64(i))
		if ratio == 1 {
			r = 1 + 0.01*float64(1-2*(i%2))*(1+float64(i)/100)
		}
		out[i] = paired.Pair{A: a, B: a * r}
	}
	return out
}

// TestJudgeABCounts checks JudgeAB's counts on trials whose verdicts are
// certain: an A/A row that comes out improved is significant but no
// false alarm; a slowed build that comes out faster is not a detection;
// a slowed row is judged in the family of the trial's other A/A rows (6
// pairs reach p = 1/32: alone that is significant at 0.05, beside a
// second row it is not); Acceptable needs every row of a slowdown
// detected and takes a false-alarm rate equal to the limit; a row whose
// MDEs are all infinite reports 0, which JSON can hold.
func TestJudgeABCounts(t *testing.T) {
	opts := paired.Options{Alpha: 0.05, MaxRegress: 0.05, Confidence: 0.95}
	setup := []ABRowSetup{{Name: "X"}, {Name: "Y"}}
	var trials []ABTrial
	for i := range 20 {
		aa := [][]paired.Pair{sure(20, 1), sure(20, 1)}
		if i == 0 {
			aa[0] = sure(20, 1.2) // the one A/A false alarm
		}
		if i == 1 {
			aa[1] = sure(20, 0.8) // significant, but improved
		}
		trials = append(trials, ABTrial{AA: aa, Slowed: [][][]paired.Pair{
			{sure(20, 1.2), sure(20, 1)},   // +20%: X caught, Y not
			{sure(20, 0.8), sure(20, 0.8)}, // "slowed" but faster: never detected
		}})
	}
	res := JudgeAB(setup, []float64{0.2, 0.3}, trials, opts)
	if res.FalseAlarms != 1 || res.Significant != 2 || res.FalseAlarmRate != 0.05 {
		t.Errorf("A/A: %d false alarms, %d significant, rate %v; want 1, 2, 0.05", res.FalseAlarms, res.Significant, res.FalseAlarmRate)
	}
	if d := res.Detections[0]; d.Rows[0].Detected != 20 || d.Rows[1].Detected != 0 {
		t.Errorf("+20%%: detected %d and %d; want 20 and 0", d.Rows[0].Detected, d.Rows[1].Detected)
	}
	if d := res.Detections[1]; d.Detected != 0 {
		t.Errorf("a slowed build that is faster: %d detections; want 0", d.Detected)
	}
	if res.Acceptable(0.05, 0.9) {
		t.Error("Acceptable with row Y never detected; want false (every row must be)")
	}
	for i := range trials { // now Y is slowed in the first slowdown as well
		trials[i].Slowed[0][1] = sure(20, 1.2)
	}
	if res := JudgeAB(setup, []float64{0.2, 0.3}, trials, opts); !res.Acceptable(0.05, 0.9) {
		t.Errorf("every row detected, false-alarm rate %v at the limit 0.05: not acceptable", res.FalseAlarmRate)
	}

	six := []ABTrial{{AA: [][]paired.Pair{sure(6, 1), sure(6, 1)}, Slowed: [][][]paired.Pair{{sure(6, 1.5), sure(6, 1)}}}}
	res = JudgeAB(setup, []float64{0.5}, six, opts)
	if d := res.Detections[0].Rows[0]; d.Detected != 0 {
		t.Errorf("6 pairs at p = 1/32 beside another row: detected; want not (Holm's level is 0.025)")
	}
	if res.AAMDE[0] != 0 {
		t.Errorf("A/A MDE of 6 pairs that cannot reach Holm's level: %v; want 0 (no finite value)", res.AAMDE[0])
	}
	var js bytes.Buffer
	if err := res.WriteJSON(&js); err != nil {
		t.Errorf("WriteJSON: %v", err)
	}
}
