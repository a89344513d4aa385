//go:build race

package stealing

// raceEnabled reports whether the race detector is on: ring slots are then
// written with atomic stores, which it can see (see ring).
const raceEnabled = true
