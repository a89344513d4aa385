//go:build race

package goruntime

// RaceEnabled reports whether the race detector is on. Code that writes
// shared memory with plain stores under a pin (per-P counters, ring slots,
// slabs) uses atomics instead when it is, so that the detector can see
// the ordering.
const RaceEnabled = true
