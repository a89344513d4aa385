package paired

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func BenchmarkAnalyze(b *testing.B) {
	for _, n := range []int{20, 200, 2000} {
		b.Run(fmt.Sprintf("pairs=%d", n), func(b *testing.B) {
			pairs := pairsWith(rand.New(rand.NewPCG(1, 1)), noises[1], n, 0.05)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Analyze(pairs, 0.95, 0.01); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
