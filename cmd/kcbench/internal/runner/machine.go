package runner

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// Machine renders machine.md: where and how a results file was made, so
// that a baseline says which hardware its numbers hold for. It adds to e
// what the results file's configuration lines do not carry: the CPU
// count, memory, kernel, date and the command line; the Go runtime's
// settings from the environment (GOGC, GOMEMLIMIT, GODEBUG and
// GOMAXPROCS), which the benchmark workers inherit and which move the
// allocating rows and the latency tails; on Linux, whether the kernel
// groups the scheduler's fairness by session (autogroup); and load, how
// busy the machine was with other work during the benchmarks (package
// cpuload; "" gives no row).
func Machine(e Env, cmdline []string, now time.Time, load string) string {
	var b strings.Builder
	b.WriteString("# Machine\n\n")
	b.WriteString("The results in this directory were measured here. Comparing them with\n")
	b.WriteString("results from other hardware (or a differently loaded machine) measures\n")
	b.WriteString("the machines, not the code: gate against a baseline from the same machine.\n\n")
	b.WriteString("| | |\n| :--- | :--- |\n")
	rows := [][2]string{
		{"date", now.UTC().Format(time.RFC3339)},
		{"command", "`" + strings.Join(cmdline, " ") + "`"},
		{"goos/goarch", e.GOOS + "/" + e.GOARCH},
		{"cpu", e.CPU},
		{"cpus (runtime.NumCPU)", fmt.Sprint(runtime.NumCPU())},
		{"gomaxprocs", fmt.Sprint(e.GOMAXPROCS)},
		{"go runtime settings", runtimeSettings(os.Getenv)},
		{"memory", memTotal()},
		{"kernel", kernel()},
		{"sched_autogroup", autogroup(autogroupFile)},
		{"load during the benchmarks", load},
		{"go version", e.GoVersion},
		{"commit", e.Commit},
		{"kcbench version", e.Version},
	}
	for _, r := range rows {
		v := r[1]
		if (r[0] == "sched_autogroup" || r[0] == "load during the benchmarks") && v == "" {
			continue // not Linux, or a kernel without it; not measured
		}
		if v == "" {
			v = "unknown"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], strings.ReplaceAll(v, "|", `\|`))
	}
	return b.String()
}

// runtimeSettings lists the environment variables that tune the Go
// runtime's collector and scheduler, as getenv reads them, or says that
// none is set. A run with GOGC=off is not comparable with one at the
// default: the collector sets much of an allocating runtime's speed and
// its latency tail.
func runtimeSettings(getenv func(string) string) string {
	var set []string
	for _, k := range []string{"GOGC", "GOMEMLIMIT", "GODEBUG", "GOMAXPROCS"} {
		if v := getenv(k); v != "" {
			set = append(set, k+"="+v)
		}
	}
	if len(set) == 0 {
		return "defaults (GOGC, GOMEMLIMIT, GODEBUG and GOMAXPROCS unset)"
	}
	return "`" + strings.Join(set, " ") + "`"
}

// memTotal returns MemTotal of /proc/meminfo, or "".
func memTotal() string {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// kernel returns the kernel release, or "".
func kernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return runtime.GOOS + " " + strings.TrimSpace(string(b))
}

// autogroupFile is Linux's switch for the scheduler's autogroups.
const autogroupFile = "/proc/sys/kernel/sched_autogroup_enabled"

// autogroup describes the autogroup switch read from file, or returns ""
// if it cannot be read. With autogroups on, the kernel shares the CPUs
// fairly between sessions first and ranks processes by nice only within a
// session, so a benchmark run at a high priority still shares the CPUs
// equally with, say, a build started from another terminal.
func autogroup(file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	switch strings.TrimSpace(string(b)) {
	case "0":
		return "off"
	case "1":
		return "on: nice ranks processes only within their session, so other sessions' work shares the CPUs equally with this run (echo 0 > " + file + " as root turns it off)"
	}
	return ""
}
