//go:build !race

package goruntime

// RaceEnabled reports whether the race detector is on (see race.go).
const RaceEnabled = false
