//go:build !race

package stealing

// raceEnabled reports whether the race detector is on (see race.go).
const raceEnabled = false
