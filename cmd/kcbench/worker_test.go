package main

import (
	"os"
	"testing"
)

// TestMain lets this test binary serve as the benchmark worker that the
// tests of "kcbench run" start (run starts os.Executable, which here is
// the test binary, with runner.WorkerEnv set), as main does.
func TestMain(m *testing.M) {
	if workerMain() {
		os.Exit(0)
	}
	os.Exit(m.Run())
}
