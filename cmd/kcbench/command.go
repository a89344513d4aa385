package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

// A command is one kcbench subcommand.
//
// To add a command, write a file with a *command and register it from an
// init function:
//
//	func init() {
//		register(&command{
//			name:     "run",
//			synopsis: "[flags] [workload...]",
//			summary:  "run the benchmarks and write a results file",
//			doc:      "Run runs ...",
//			run:      runRun,
//		})
//	}
//
// run receives the arguments after the command name. It should build its
// flags with c.flagSet and parse them with parseFlags, so that -h prints
// the command's usage and a malformed flag is a usage error (exit 2).
// It returns nil on success, usageError or badInput (exit 2) for bad
// input, failure (exit 1) for a failed check, and any other error for
// exit 1.
type command struct {
	// name is the subcommand name.
	name string
	// synopsis is the argument synopsis shown after "kcbench <name>".
	synopsis string
	// summary is a one-line description for the command list.
	summary string
	// doc is the description shown by -h.
	doc string
	// run executes the command.
	run func(stdout, stderr io.Writer, args []string) error
}

// commands is the registry, by name.
var commands = map[string]*command{}

// register adds c to the registry. It panics on a programming error: an
// empty or duplicate name, or a nil run function. It never sees user
// input.
func register(c *command) {
	if c.name == "" || c.run == nil {
		panic("kcbench: register: command needs a name and a run function")
	}
	if _, dup := commands[c.name]; dup {
		panic("kcbench: register: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// lookup returns the command called name.
func lookup(name string) (*command, bool) {
	c, ok := commands[name]
	return c, ok
}

// commandNames returns the registered command names, sorted.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// commandList returns the command names as a comma-separated list.
func commandList() string { return strings.Join(commandNames(), ", ") }

// printUsage prints the top-level usage and the command list.
func printUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: kcbench <command> [flags] [arguments]\n\ncommands:\n")
	for _, name := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", name, commands[name].summary)
	}
	fmt.Fprintf(w, "\nRun \"kcbench help <command>\" or \"kcbench <command> -h\" for details.\n")
}

// flagSet returns a FlagSet for c that reports errors instead of
// exiting and prints c's usage to stderr.
func (c *command) flagSet(stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("kcbench "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "usage: kcbench %s %s\n\n%s\n", c.name, c.synopsis, strings.TrimSpace(c.doc))
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintf(out, "\nflags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args with fs. It returns flag.ErrHelp after -h (the
// usage has been printed; the command exits 0) and a silent usage error
// for a malformed flag (the flag package has printed it).
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return flag.ErrHelp
	}
	return &exitError{code: exitUsage, err: fmt.Errorf("%w: %w", ErrUsage, err), silent: true}
}

// loadResults loads results files, printing their syntax warnings to
// stderr (file:line: reason), also before the error of a file left
// without results, which they explain. Unreadable or empty files are bad
// input (exit 2).
func loadResults(stderr io.Writer, paths ...string) (*results.Set, error) {
	set, err := results.Load(paths...)
	if err != nil {
		var nr *results.NoResultsError
		if errors.As(err, &nr) {
			for _, w := range nr.Warnings {
				fmt.Fprintln(stderr, w)
			}
		}
		return nil, badInput(err)
	}
	for _, w := range set.Warnings {
		fmt.Fprintln(stderr, w)
	}
	return set, nil
}
