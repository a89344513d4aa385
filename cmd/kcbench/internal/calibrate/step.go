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
// injected spin (the same dependent chain of shifts and xors): the median
// of five timings of a million steps.
func StepNs() float64 {
	const n = 1 << 20
	var ns []float64
	for range 5 {
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
	slices.Sort(ns)
	return ns[2]
}
