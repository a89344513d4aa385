package cpuload

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// burnEnv makes the test binary burn CPU for the given duration and exit
// (TestMain), so that a test can run it as a child.
const burnEnv = "KCBENCH_CPULOAD_TEST_BURN"

func TestMain(m *testing.M) {
	if d, err := time.ParseDuration(os.Getenv(burnEnv)); err == nil {
		burn(d)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// burn spins until this process has used d of CPU time.
func burn(d time.Duration) {
	var r syscall.Rusage
	start := cpuNow(&r)
	for cpuNow(&r)-start < d {
		for i := 0; i < 1e5; i++ {
			_ = i * i
		}
	}
}

func cpuNow(r *syscall.Rusage) time.Duration {
	syscall.Getrusage(syscall.RUSAGE_SELF, r)
	return cpuTime(r)
}

// Own counts this process's CPU time and that of a child once waited for;
// the machine's busy time includes both.
func TestMeterOwnWork(t *testing.T) {
	m, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	burn(200 * time.Millisecond)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), burnEnv+"=300ms")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	l, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if l.Own < 500*time.Millisecond {
		t.Errorf("Own after burning 200ms here and 300ms in a child: got %v; want at least 500ms", l.Own)
	}
	// /proc/stat counts in 10 ms ticks per CPU, so allow their rounding.
	if l.Busy < 400*time.Millisecond {
		t.Errorf("Busy: got %v; want at least the 500ms this test burned, less rounding", l.Busy)
	}
	if l.CPUs < 1 || l.Elapsed < 300*time.Millisecond {
		t.Errorf("got CPUs %d, Elapsed %v; want at least 1 and 300ms", l.CPUs, l.Elapsed)
	}
}
