package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/runner"
)

// TestMain lets this test binary serve as the benchmark worker that the
// tests of "kcbench run" start (run starts os.Executable, which here is
// the test binary, with runner.WorkerEnv set), as main does.
func TestMain(m *testing.M) {
	if os.Getenv(runner.WorkerEnv) != "" {
		if err := runner.ServeWorker(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "kcbench worker: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
