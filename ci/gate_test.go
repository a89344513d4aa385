// Package ci holds the tests of the CI scripts beside it.
package ci

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// gateScript runs gate.sh with env added to this process's environment
// (without the variables that choose its mode and flags), TMPDIR set to
// tmp, and returns its combined output and exit status.
func gateScript(t *testing.T, tmp string, env ...string) (string, int) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("gate.sh is a bash script")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("bash", "gate.sh")
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "KCBENCH_BASE", "KCBENCH_BASELINE", "KCBENCH_GATE_FLAGS", "KCBENCH_RUN_FLAGS", "KCBENCH_OUT", "TMPDIR":
		default:
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, append(env, "TMPDIR="+tmp)...)
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// gate.sh exits with kcbench gate's own status: 2 for a base ref that
// names no commit (go run would have made it 1). It fails before any
// build of a driver or any benchmark, and leaves no temporary files.
func TestGateScriptExitTwo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command")
	}
	tmp := t.TempDir()
	out, code := gateScript(t, tmp, "KCBENCH_BASE=no-such-ref-of-kcbench-ci", "KCBENCH_OUT="+filepath.Join(t.TempDir(), "out"))
	if code != 2 || !strings.Contains(out, `bad git ref "no-such-ref-of-kcbench-ci"`) {
		t.Errorf("gate.sh with a bad ref: exit %d, want 2 naming the ref\n%s", code, out)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("gate.sh left %v in its TMPDIR", left)
	}
}
