package vcore_test

import (
	"testing"

	"github.com/kcbench/kcbench/internal/sleepq/sleepqtest"
	"github.com/kcbench/kcbench/runtimes/kc"
	"github.com/kcbench/kcbench/runtimes/vcore"
)

// The sleep queue itself is tested in internal/sleepq; these are the
// timer tests that need the executor, the default one for both.
func TestTimers(t *testing.T) {
	newEx := func() (kc.Executor, error) { return vcore.New() }
	sleepqtest.Test(t, newEx, newEx)
}
