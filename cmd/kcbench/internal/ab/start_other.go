package ab

import "os/exec"

// startProcess starts cmd.
func startProcess(cmd *exec.Cmd) error { return cmd.Start() }
