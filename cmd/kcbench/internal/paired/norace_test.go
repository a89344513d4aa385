//go:build !race

package paired

// raceEnabled is false without the race detector.
const raceEnabled = false
