//go:build linux

package ab

import (
	"fmt"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// startProcess starts cmd, on the CPUs cpus when not empty. A child
// inherits the affinity mask of the thread that forks it, and Go
// computes GOMAXPROCS from that mask at start, so the calling goroutine
// is locked to its thread, the thread's mask is narrowed for the fork
// and then restored.
func startProcess(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return fmt.Errorf("%w: %w", ErrAffinity, err)
	}
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("%w: CPUs %v: %w", ErrAffinity, cpus, err)
	}
	err := cmd.Start()
	if rerr := unix.SchedSetaffinity(0, &old); rerr != nil && err == nil {
		err = fmt.Errorf("%w: restoring the mask: %w", ErrAffinity, rerr)
	}
	return err
}
