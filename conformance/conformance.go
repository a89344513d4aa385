// Package conformance is the testing matrix of the kcbench spec as a reusable
// suite, in the style of testing/fstest.TestFS: it does not import testing,
// so it can run from a test, from a program (the `kcbench conform` command) or
// against a backend that lives outside this module.
//
// The suite is a list of named cases (Cases). Each checks one row of the
// spec's testing matrix or one decided point of the semantics — spec 01 §4.18,
// spec 04 §9-10, spec 02's shield, OnCancel and lease rules, spec 03's
// wait_all and launch rules, counters, trace order, the context.Context view
// of a job, panics, detached children, waits that could never end, actors,
// producers and pools cancelled at their start, shutdown, deep nesting and
// blocking —
// and names the spec section in Case.Spec. Every case asserts exact states,
// errors (with errors.Is) and counts, and orders events with channels,
// leases and cancellation rather than with sleeps, so a failure means a bug.
//
// # Running it against a backend
//
// Give Test a function that builds a fresh runtime on your executor:
//
//	err := conformance.Test(func() (*kc.Runtime, error) {
//		return kc.New(mybackend.New()), nil
//	})
//	if err != nil {
//		t.Fatal(err) // one line per failed case: "CaseName: got X; want Y"
//	}
//
// Every case gets a runtime of its own from that function, runs on it, and
// then the harness closes it. The error Test returns joins one error per
// failed case (errors.Join); each starts with the case's name and says what
// it got and what it wanted. RunCases runs a chosen list of cases and returns
// a Result for each, with its duration, for tools that print a matrix.
//
// # The watchdog
//
// A case that deadlocks must fail, not hang the suite: each case, including
// building and closing its runtime, runs on a goroutine of its own under a
// watchdog (DefaultWatchdog for Test, a chosen duration for RunCases). A case
// still running when the watchdog fires fails with "CaseName: hung: no result
// after 20s"; its goroutines are abandoned, so a program that saw a hang
// should exit rather than go on using the process for long. A panic in a
// case's Run, or a newRuntime that fails, fails only that case.
//
// # Cost
//
// The whole suite takes a few seconds per backend on two cores, and up to
// about ten under the race detector. Most of that goes to the few cases
// that repeat a race until a time budget of up to two seconds is spent
// (earlyWakeBudget, finishRaceBudget, wakeDuringParkBudget, raceBudget),
// which a quiet machine often ends early by a round limit. A few cases
// spend a few milliseconds waiting for timeouts on purpose; the rest never
// sleep.
package conformance

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// DefaultWatchdog is how long Test lets one case run (building, running and
// closing its runtime) before it fails the case as hung.
const DefaultWatchdog = 20 * time.Second

// A Case is one check of the suite.
type Case struct {
	Name string // unique, CamelCase, stable: tools select cases by name
	Spec string // the spec section it checks, e.g. "01 §4.18 row 2" or "04 §10.3"

	// Run runs the case on rt, a fresh runtime that the harness closes
	// afterwards (Run may close it itself). It returns nil if the runtime
	// behaved as the spec says, else an error describing what it got and what
	// it wanted (without the case name, which the harness adds).
	Run func(rt *kc.Runtime) error
}

// Result is the outcome of one case run by RunCases.
type Result struct {
	Case     string        // Case.Name
	Spec     string        // Case.Spec
	Err      error         // nil if the case passed; else its message starts with the case name
	Duration time.Duration // from building the runtime to closing it (the watchdog's duration if hung)
}

// Test runs every case of Cases, each on a fresh runtime from newRuntime and
// under DefaultWatchdog, and returns nil if all pass, else the errors.Join of
// one error per failed case ("CaseName: got X; want Y").
func Test(newRuntime func() (*kc.Runtime, error)) error {
	var errs []error
	for _, r := range RunCases(newRuntime, Cases(), DefaultWatchdog) {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return errors.Join(errs...)
}

// RunCases runs cases in order, each on a fresh runtime from newRuntime that
// it closes afterwards, each under the watchdog (DefaultWatchdog if watchdog
// is not positive), and returns one Result per case in the same order. A
// case that does not finish in time fails as hung and is abandoned; a
// newRuntime error, a panic in Run and a failing Close fail only their case.
func RunCases(newRuntime func() (*kc.Runtime, error), cases []Case, watchdog time.Duration) []Result {
	if watchdog <= 0 {
		watchdog = DefaultWatchdog
	}
	out := make([]Result, 0, len(cases))
	for _, c := range cases {
		out = append(out, runCase(newRuntime, c, watchdog))
	}
	return out
}

// Phases of a case, for the hung message.
const (
	phaseNew int32 = iota
	phaseRun
	phaseClose
)

var phaseNames = [...]string{"building the runtime", "running the case", "closing the runtime"}

func runCase(newRuntime func() (*kc.Runtime, error), c Case, watchdog time.Duration) Result {
	start := time.Now()
	var phase atomic.Int32
	done := make(chan error, 1) // buffered: an abandoned case may still send
	go func() { done <- guard(c, newRuntime, &phase) }()
	timer := time.NewTimer(watchdog)
	defer timer.Stop()
	var err error
	select {
	case err = <-done:
	case <-timer.C:
		err = fmt.Errorf("%s: hung: no result after %v (while %s)", c.Name, watchdog, phaseNames[phase.Load()])
	}
	return Result{Case: c.Name, Spec: c.Spec, Err: err, Duration: time.Since(start)}
}

// guard builds the runtime, runs the case and closes the runtime, turning
// every way they can go wrong into an error that starts with the case name.
func guard(c Case, newRuntime func() (*kc.Runtime, error), phase *atomic.Int32) (err error) {
	finished := false
	var rt *kc.Runtime
	defer func() {
		if finished {
			return
		}
		if rt != nil && phase.Load() != phaseClose {
			go rt.Close() // best effort, off the watchdog's clock: it may never return
		}
		r := recover()
		if r == nil { // runtime.Goexit: recover returns nil
			err = fmt.Errorf("%s: got runtime.Goexit while %s; want a result", c.Name, phaseNames[phase.Load()])
			return
		}
		err = fmt.Errorf("%s: got panic while %s: %v; want none\n%s", c.Name, phaseNames[phase.Load()], r, debug.Stack())
	}()
	if c.Run == nil {
		finished = true
		return fmt.Errorf("%s: got a Case with a nil Run; want a function", c.Name)
	}
	if newRuntime == nil {
		finished = true
		return fmt.Errorf("%s: got a nil newRuntime; want a function", c.Name)
	}
	rt, err = newRuntime()
	switch {
	case err != nil:
		finished = true
		if rt != nil {
			go rt.Close()
		}
		return fmt.Errorf("%s: newRuntime: got error %v; want a runtime", c.Name, err)
	case rt == nil:
		finished = true
		return fmt.Errorf("%s: newRuntime: got a nil runtime and no error; want a runtime", c.Name)
	}
	phase.Store(phaseRun)
	runErr := c.Run(rt)
	phase.Store(phaseClose)
	closeErr := rt.Close()
	finished = true
	switch {
	case runErr != nil && closeErr != nil:
		return fmt.Errorf("%s: %w; Close: got error %v; want nil", c.Name, runErr, closeErr)
	case runErr != nil:
		return fmt.Errorf("%s: %w", c.Name, runErr)
	case closeErr != nil:
		return fmt.Errorf("%s: Close: got error %v; want nil", c.Name, closeErr)
	}
	return nil
}

// Cases returns the suite's cases in their canonical order: spec 01's
// matrix, spec 04's nursery scenarios and nursery cancellation, spec 02,
// spec 03, then the decided semantics (context, panics, detached, causes,
// awaits, wait cycles, counters, trace, channels, select, actors), stress
// and shutdown. The slice is new on each call; callers may filter it.
func Cases() []Case {
	var all []Case
	for _, group := range [][]Case{matrixCases(), nurseryCases(), nurseryCancelCases(), shieldCases(), leaseCases(),
		scopeCases(), contextCases(), jobCases(), waitCases(), observeCases(), observeWaitCases(), chanCases(), chanOrderCases(),
		selectCases(), selectMoreCases(), chanReuseCases(), actorCases(), actorCancelCases(), actorEdgeCases(),
		treeEdgeCases(), modelFoundCases(), contractCases(), schedCases(), schedMoreCases(), treeEndCases(), cancelWaitCases(),
		execEdgeCases(), stressCases(), shutdownCases()} {
		all = append(all, group...)
	}
	return all
}
