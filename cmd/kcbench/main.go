// Command kcbench runs, compares, gates, plots and reports the kcbench
// benchmarks.
//
// Usage:
//
//	kcbench <command> [flags] [arguments]
//	kcbench help [command]
//
// Every command reads and writes the Go benchmark format
// (https://golang.org/design/14313-benchmark-format); see package
// internal/results for the benchmark names and the latency lines kcbench
// adds to it. Commands:
//
//	run        conformance, then every benchmark; results.txt, report.md, charts
//	compare    benchstat-style comparison tables (text, markdown, csv, json)
//	gate       regression gate against a baseline, with exit codes
//	conform    the conformance matrix of every backend
//	plot       PNG and SVG charts of a results file
//	report     report.md with tables, spec targets and plots
//	profile    CPU, heap, mutex and block profiles of one benchmark, and CPU diffs
//	calibrate  the gate's false-alarm and detection rates on this machine
//
// "kcbench help" lists the commands; "kcbench help <command>" documents
// one. A command registers itself from an init function (see command.go).
//
// Exit status: 0 on success, 1 when a command fails (for gate: a
// regression or a missed spec target), 2 on a usage error or bad input
// (unreadable or empty files, malformed flags) and, for gate, when it
// could not decide (too few samples, blind rows, baseline rows missing
// from the results); a gate run that found a regression exits 1 even if
// it could not decide other rows.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/runner"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// ErrUsage is wrapped by every usage error: a malformed command line.
var ErrUsage = errors.New("usage error")

// exitError carries the exit code for an error. Silent errors have
// already been reported (e.g. by the flag package) and are not printed
// again.
type exitError struct {
	code   int
	err    error
	silent bool
}

// Error returns the message of the wrapped error.
func (e *exitError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *exitError) Unwrap() error { return e.err }

// usageError returns an exit-2 error wrapping ErrUsage; format may use
// %w to wrap a cause too.
func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf("%w: "+format, append([]any{ErrUsage}, args...)...)}
}

// onlyIn returns nil unless one of the named flags (without their dash)
// was set on the command line, when it returns a usage error that names
// every such flag: "-count and -cpus apply only with -base". It guards a
// command whose modes take different flags, so that a flag of the mode not
// chosen is refused rather than parsed and then ignored without a word.
func onlyIn(fs *flag.FlagSet, where string, names ...string) error {
	var set []string
	fs.Visit(func(f *flag.Flag) { // in name order
		if slices.Contains(names, f.Name) {
			set = append(set, "-"+f.Name)
		}
	})
	switch n := len(set); n {
	case 0:
		return nil
	case 1:
		return usageError("%s applies only %s", set[0], where)
	default:
		return usageError("%s and %s apply only %s", strings.Join(set[:n-1], ", "), set[n-1], where)
	}
}

// marked returns the names of fs's flags whose usage starts with one of
// prefixes: the help's mark of a flag that one mode alone takes ("A/B: ",
// "-ab: "), so that the mark and onlyIn's check cannot disagree.
func marked(fs *flag.FlagSet, prefixes ...string) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		for _, p := range prefixes {
			if strings.HasPrefix(f.Usage, p) {
				names = append(names, f.Name)
				return
			}
		}
	})
	return names
}

// bound is one range check of a numeric flag: ok says whether the flag's
// value keeps to it, want what the value must be ("at least 1").
type bound struct {
	flag  string // without its dash
	value any
	ok    bool
	want  string
}

// checkBounds returns nil when every bound holds, else a usage error that
// names each flag out of range with its value: "-count 0: want at least
// 1; -latency -1: want at least 0".
func checkBounds(bs ...bound) error {
	var bad []string
	for _, b := range bs {
		if !b.ok {
			bad = append(bad, fmt.Sprintf("-%s %v: want %s", b.flag, b.value, b.want))
		}
	}
	if bad == nil {
		return nil
	}
	return usageError("%s", strings.Join(bad, "; "))
}

// badInput returns err with exit code 2: the input could not be judged.
func badInput(err error) error {
	return &exitError{code: exitUsage, err: err}
}

// failure returns err with exit code 1.
func failure(err error) error {
	return &exitError{code: exitFailure, err: err}
}

// exitCode returns the exit code for err: its exitError's code, else 1
// (0 for nil).
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return exitFailure
}

// isSilent reports whether err has already been reported to the user.
func isSilent(err error) bool {
	var e *exitError
	return errors.As(err, &e) && e.silent
}

func main() {
	if workerMain() {
		return
	}
	err := run(os.Stdout, os.Stderr, os.Args[1:])
	if err == nil {
		return
	}
	if !isSilent(err) {
		fmt.Fprintf(os.Stderr, "kcbench: %v\n", err)
	}
	os.Exit(exitCode(err))
}

// workerMain serves as a benchmark worker of "kcbench run" (see
// runner.Isolation), which starts this program again with WorkerEnv set,
// if the environment says this process is one; it reports whether it did,
// and exits the process if serving fails.
func workerMain() bool {
	if os.Getenv(runner.WorkerEnv) == "" {
		return false
	}
	if err := runner.ServeWorker(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "kcbench worker: %v\n", err)
		os.Exit(exitFailure)
	}
	return true
}

// run executes the command line args (without the program name),
// writing results to stdout and diagnostics to stderr.
func run(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		printUsage(stderr)
		return usageError("no command given")
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		return help(stdout, stderr, rest)
	}
	c, ok := lookup(name)
	if !ok {
		printUsage(stderr)
		return usageError("unknown command %q (commands: %s)", name, commandList())
	}
	err := c.run(stdout, stderr, rest)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	return nil
}

// help prints the usage of kcbench or of one command.
func help(stdout, stderr io.Writer, args []string) error {
	switch len(args) {
	case 0:
		printUsage(stdout)
		return nil
	case 1:
		c, ok := lookup(args[0])
		if !ok {
			return usageError("unknown command %q (commands: %s)", args[0], commandList())
		}
		err := c.run(stdout, stdout, []string{"-h"})
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	return usageError("usage: kcbench help [command]")
}
