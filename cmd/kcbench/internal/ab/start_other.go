//go:build !linux

package ab

import (
	"fmt"
	"os/exec"
	"runtime"
)

// startProcess starts cmd; CPU affinity is implemented on linux only.
func startProcess(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) > 0 {
		return fmt.Errorf("%w: not supported on %s (linux only)", ErrAffinity, runtime.GOOS)
	}
	return cmd.Start()
}
