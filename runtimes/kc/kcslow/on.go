//go:build kcslow

package kcslow

import (
	"fmt"
	"strconv"
	"sync/atomic"
)

// On reports whether this build injects the extra cost: true under the
// kcslow build tag.
const On = true

// steps and count are set at link time with -ldflags -X (see the package
// documentation); the zero values inject nothing and count nothing.
var steps, count string

var (
	nsteps   = parse("steps", steps)
	counting = count == "1"
	hits     atomic.Uint64 // calls of Spin while counting; an atomic because every worker spins
	seed     uint64        = 0x9e3779b97f4a7c15
	sink     atomic.Uint64 // results that were zero: never, in practice
)

// parse reads a link-time number; a malformed one is a build mistake that
// would silently void a calibration, so it panics at init.
func parse(name, s string) int {
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		panic(fmt.Sprintf("kcslow: -X %s=%q: want a count >= 0", name, s))
	}
	return n
}

// Spin runs Steps xorshift steps (a dependent chain the compiler cannot
// skip) and, in a counting build, counts the call.
func Spin() {
	if counting {
		hits.Add(1)
	}
	x := seed
	for range nsteps {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	if x == 0 {
		sink.Add(1)
	}
}

// Steps returns the xorshift steps per call set at link time.
func Steps() int { return nsteps }

// Counting reports whether this build counts the calls.
func Counting() bool { return counting }

// Hits returns the number of calls so far in a counting build (0 in
// others).
func Hits() uint64 { return hits.Load() }
