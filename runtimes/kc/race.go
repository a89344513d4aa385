//go:build race

package kc

// raceEnabled reports whether the race detector is on: counters then use
// atomic adds, which it can see, instead of pinned plain increments.
const raceEnabled = true
