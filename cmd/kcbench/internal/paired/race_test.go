//go:build race

package paired

// raceEnabled is true under the race detector, which makes the
// simulations ten times slower and has nothing to find in them (they
// are single-goroutine and deterministic; plain go test runs them).
const raceEnabled = true
