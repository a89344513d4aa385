//go:build ignore

// The A/B driver's kcslow hooks, for a build with the kcslow tag (see
// main.go and package kcslow).
package main

import (
	"strconv"

	"github.com/kcbench/kcbench/runtimes/kc/kcslow"
)

// slowInfo is the injected steps per call, and "count" in a counting build.
func slowInfo() string {
	if kcslow.Counting() {
		return "count"
	}
	return strconv.Itoa(kcslow.Steps())
}

// slowCalls is the number of injection points passed so far (0 unless
// counting).
func slowCalls() uint64 { return kcslow.Hits() }
