// Package kcslow injects a known extra cost into the kc core's launch,
// await and park paths, so that "kcbench calibrate -ab" can check that the
// A/B gate catches a real slowdown of the core on any backend.
//
// The core calls Spin behind the constant On:
//
//	if kcslow.On {
//		kcslow.Spin()
//	}
//
// In an ordinary build On is false, the branch is removed by the compiler
// and the package contributes no code: a build carries the injection only
// when made with the build tag kcslow, and the amount only when set with
//
//	-ldflags '-X github.com/kcbench/kcbench/runtimes/kc/kcslow.steps=N'
//
// (N xorshift steps per call, about 1.5 ns each on the development
// machine) and, to count the calls instead,
//
//	-ldflags '-X github.com/kcbench/kcbench/runtimes/kc/kcslow.count=1'
//
// Counting is for a separate probe build: its atomic counter is shared by
// every worker, so it costs more than the steps it counts.
package kcslow
