//go:build !race

package kc

// raceEnabled reports whether the race detector is on (see race.go).
const raceEnabled = false
