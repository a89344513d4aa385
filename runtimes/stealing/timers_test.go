package stealing_test

import (
	"testing"

	"github.com/kcbench/kcbench/internal/sleepq/sleepqtest"
	"github.com/kcbench/kcbench/runtimes/kc"
	"github.com/kcbench/kcbench/runtimes/stealing"
)

// The sleep queue itself is tested in internal/sleepq; these are the
// timer tests that need the executor.
func TestTimers(t *testing.T) {
	sleepqtest.Test(t,
		func() (kc.Executor, error) { return stealing.New(stealing.MaxExtra(0)) },
		func() (kc.Executor, error) { return stealing.New() })
}
