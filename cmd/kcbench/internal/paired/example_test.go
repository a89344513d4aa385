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
