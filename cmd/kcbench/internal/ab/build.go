// Package ab runs A/B comparisons of builds: it checks out a git ref into
// a temporary worktree, builds a benchmark driver (the program in
// driver/main.go) against each side's code, runs the drivers as
// long-lived child processes and alternates short benchmark runs between
// them, so that every sample of one side has a neighbour of the other
// side taken moments apart. The pairs go to package paired for judging.
//
// The layering is x/perf's: this package measures, package paired does
// the statistics, the kcbench commands present the result.
package ab

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Errors of this package; match them with errors.Is.
var (
	// ErrBadRef reports a git ref that does not name a commit.
	ErrBadRef = errors.New("bad git ref")
	// ErrGit reports a git command that failed otherwise.
	ErrGit = errors.New("git failed")
	// ErrBuild reports a driver that does not build (a *BuildError).
	ErrBuild = errors.New("driver build failed")
	// ErrDriver reports a driver process that misbehaved: it exited,
	// answered out of protocol, or took longer than its watchdog.
	ErrDriver = errors.New("driver failed")
	// ErrAffinity reports a CPU affinity that could not be set.
	ErrAffinity = errors.New("cannot set CPU affinity")
	// ErrNoLatency reports a latency request to a driver whose protocol
	// has none (an executable built from an older kcbench).
	ErrNoLatency = errors.New("driver cannot sample latency")
)

//go:embed driver/*.go
var driverSrc embed.FS

// A BuildSpec says what to build a driver from.
type BuildSpec struct {
	// Dir is the root of the module to build against.
	Dir string
	// Kcslow builds with the kcslow tag (package kcslow), and Steps and
	// Count are its link-time settings.
	Kcslow bool
	Steps  int
	Count  bool
	// Label names the side in errors ("base main", "working tree").
	Label string
}

// BuildError reports a driver that did not build; Output is the go
// command's.
type BuildError struct {
	Label, Dir, Output string
	Err                error
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("building the A/B driver against %s (%s): %v\n%s", e.Label, e.Dir, e.Err, strings.TrimSpace(e.Output))
}

// Is makes errors.Is(err, ErrBuild) hold.
func (e *BuildError) Is(target error) bool { return target == ErrBuild }

// Unwrap returns the go command's error.
func (e *BuildError) Unwrap() error { return e.Err }

// Build builds the driver described by spec into the executable out. The
// driver's source is written to a temporary directory outside spec.Dir
// (the go command resolves its imports against spec.Dir's module), so the
// tree built against is never written to.
func Build(ctx context.Context, spec BuildSpec, out string) error {
	src, err := os.MkdirTemp("", "kcbench-abdriver-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(src)
	files := []string{"main.go", "plain.go"}
	if spec.Kcslow {
		files[1] = "kcslow.go"
	}
	args := []string{"build", "-trimpath", "-o", out}
	if spec.Kcslow {
		args = append(args, "-tags", "kcslow")
		const pkg = "github.com/kcbench/kcbench/runtimes/kc/kcslow"
		ld := fmt.Sprintf("-X %s.steps=%d", pkg, spec.Steps)
		if spec.Count {
			ld += fmt.Sprintf(" -X %s.count=1", pkg)
		}
		args = append(args, "-ldflags", ld)
	}
	for _, f := range files {
		b, err := driverSrc.ReadFile("driver/" + f)
		if err != nil {
			return err
		}
		// The files carry "//go:build ignore" in this repository so that
		// they are not a package of it; the copy is built as it is.
		b = bytes.Replace(b, []byte("//go:build ignore\n"), nil, 1)
		path := filepath.Join(src, f)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
		args = append(args, path)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = spec.Dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		label := spec.Label
		if label == "" {
			label = spec.Dir
		}
		return &BuildError{Label: label, Dir: spec.Dir, Output: string(b), Err: err}
	}
	return nil
}
