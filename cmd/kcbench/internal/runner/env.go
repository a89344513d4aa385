package runner

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Env is the machine and build a run happens on; it becomes the file
// configuration lines of the results file (the keys package results and
// the report read).
type Env struct {
	GOOS, GOARCH string
	CPU          string // the CPU model, as go test's "cpu:" line
	GOMAXPROCS   int
	GoVersion    string
	Commit       string // the source revision, "-dirty" appended for uncommitted changes
	Version      string // kcbench's version
}

// Keys are the file configuration keys Env writes, in order.
var Keys = []string{"goos", "goarch", "cpu", "gomaxprocs", "go-version", "commit", "kcbench-version"}

// Config returns the file configuration of e, one entry per key of Keys;
// empty fields are written as "unknown".
func (e Env) Config() []benchfmt.Config {
	vals := []string{e.GOOS, e.GOARCH, e.CPU, strconv.Itoa(e.GOMAXPROCS), e.GoVersion, e.Commit, e.Version}
	cfg := make([]benchfmt.Config, len(Keys))
	for i, k := range Keys {
		v := strings.TrimSpace(vals[i])
		if v == "" || v == "0" {
			v = "unknown"
		}
		cfg[i] = benchfmt.Config{Key: k, Value: []byte(v), File: true}
	}
	return cfg
}

// Environment describes this process: GOOS, GOARCH, the CPU model (from
// /proc/cpuinfo where there is one), GOMAXPROCS, the Go version, the
// commit (the binary's VCS stamp, else "git" in the working directory)
// and the given kcbench version.
func Environment(version string) Env {
	return Env{
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPU: cpuModel(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(),
		Commit: commit(), Version: version,
	}
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	return parseCPUInfo(f)
}

// parseCPUInfo returns the first "model name" value of a cpuinfo file.
func parseCPUInfo(r io.Reader) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(val)
		}
	}
	return ""
}

// commit returns the VCS revision of the binary (go build stamps it;
// go run and go test do not), else that of the git checkout in the
// working directory ("-dirty" for uncommitted changes outside reports/),
// else "".
func commit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, dirty string
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				rev = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = "-dirty"
			}
		}
		if rev != "" {
			return shortRev(rev) + dirty
		}
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := shortRev(string(bytes.TrimSpace(out)))
	// Generated reports (a baseline being rewritten) do not make the
	// source dirty.
	st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)reports").Output()
	if err == nil && len(bytes.TrimSpace(st)) > 0 {
		rev += "-dirty"
	}
	return rev
}

// shortRev shortens a revision to 12 characters.
func shortRev(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
