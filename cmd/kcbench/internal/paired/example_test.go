package paired_test

import (
	"fmt"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
)

// Twelve rounds of A and B run side by side while the machine's speed
// wanders by 2x: B is about 10% slower in every round.
func ExampleAnalyze() {
	as := []float64{200, 210, 390, 400, 205, 380, 220, 215, 410, 395, 230, 198}
	bs := []float64{221, 229, 431, 438, 228, 421, 240, 238, 449, 437, 252, 219}
	var pairs []paired.Pair
	for i := range as {
		pairs = append(pairs, paired.Pair{A: as[i] * 1e-9, B: bs[i] * 1e-9})
	}
	e, err := paired.Analyze(pairs, 0.95, 0.05)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("B/A %.3f [%.3f, %.3f] p=%.2g ±%.1f%% MDE %.1f%%\n", e.Ratio, e.Lo, e.Hi, e.P, 100*paired.HalfWidth(e), 100*e.MDE)
	// Output:
	// B/A 1.101 [1.095, 1.107] p=0.00049 ±0.5% MDE 0.9%
}

// Three rows of one A/B run: a cost that got 10% worse, one that did not
// change, and allocations that are the same in every round (left out of
// the Holm family: they cannot fail).
func ExampleJudge() {
	round := func(i int) float64 { return 1e-6 * (1 + 0.5*float64(i%3)) } // the machine's speed wanders
	var slower, same, allocs []paired.Pair
	for i := range 16 {
		a := round(i)
		wobble := 1 + 0.004*float64(i%5-2)
		slower = append(slower, paired.Pair{A: a, B: a * 1.10 * wobble})
		same = append(same, paired.Pair{A: a, B: a * wobble * (1 + 0.001*float64(i%2))})
		allocs = append(allocs, paired.Pair{A: 2, B: 2})
	}
	rows := []paired.Row{
		{Name: "JobCreate", Unit: "sec/op", Pairs: slower},
		{Name: "AwaitCached", Unit: "sec/op", Pairs: same},
		{Name: "JobCreate", Unit: "allocs/op", Pairs: allocs},
	}
	for _, j := range paired.Judge(rows, paired.DefaultOptions) {
		fmt.Printf("%s %s: %.3f× adj p %.2g MDE %.1f%% %v\n", j.Row.Name, j.Row.Unit, j.Est.Ratio, j.AdjP, 100*j.Est.MDE, j.Verdict)
	}
	// Output:
	// JobCreate sec/op: 1.100× adj p 0.00092 MDE 0.8% regressed
	// AwaitCached sec/op: 1.000× adj p 1 MDE 0.7% ok
	// JobCreate allocs/op: 1.000× adj p 1 MDE 0.0% ok
}
