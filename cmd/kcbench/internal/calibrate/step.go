package calibrate

import (
	"slices"
	"time"
)

var (
	stepSeed uint64 = 0x9e3779b97f4a7c15 // a variable, so the loop cannot be folded
	stepSink uint64
)

// StepNs measures the cost in ns of one xorshift step of package kcslow's
// injected spin (the same dependent chain of shifts and xors): the least
// of nine timings of a million steps, since on a busy machine every
// preemption only adds to a timing of pure computation.
func StepNs() float64 {
	const n = 1 << 20
	var ns []float64
	for range 9 {
		x := stepSeed
		t0 := time.Now()
		for range n {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
		d := time.Since(t0)
		stepSink += x
		ns = append(ns, float64(d.Nanoseconds())/n)
	}
	return slices.Min(ns)
}
