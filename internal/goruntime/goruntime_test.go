package goruntime_test

import (
	"runtime"
	"testing"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// TestProcPin checks that ProcPin returns a P id below GOMAXPROCS, the
// bound the per-P arrays of the runtimes are sized by.
func TestProcPin(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for range 1000 {
		pid := goruntime.ProcPin()
		goruntime.ProcUnpin()
		if pid < 0 || pid >= procs {
			t.Fatalf("ProcPin: got P %d; want 0 to %d", pid, procs-1)
		}
	}
}
