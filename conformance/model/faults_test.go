//go:build kcfaults

package model_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kcbench/kcbench/conformance/model"
	"github.com/kcbench/kcbench/internal/faults"
	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
	"github.com/kcbench/kcbench/runtimes/stealing"
)

// faultBudget bounds the programs the checker may need to catch one
// broken-runtime mutant. The first catch is typically within a few dozen.
const faultBudget = 400

// TestCatchesFaults checks that the random checker rejects every
// deliberately broken core of internal/faults within faultBudget programs,
// but one: TimeoutOverridesFailure needs a timer to fire after a failure and
// before its scope ends, which no program can order without a race against
// the clock (the conformance suite's FailureBeforeTimeout catches it).
//
// It does not run under the race detector: a broken core breaks the
// memory model too (with NoWaitChildren a body still runs while
// Runtime.Close runs), and the detector then fails whichever test runs.
func TestCatchesFaults(t *testing.T) {
	if goruntime.RaceEnabled {
		t.Skip("broken runtimes race by design; the plain test run checks them")
	}
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault faults.Set
	}{
		{"NoWaitChildren", faults.NoWaitChildren},
		{"NoCancelSiblings", faults.NoCancelSiblings},
		{"SupervisorPropagates", faults.SupervisorPropagates},
		{"LostJoinWakeup", faults.LostJoinWakeup},
		{"DoubleCount", faults.DoubleCount},
		{"ShieldNoDefer", faults.ShieldNoDefer},
		{"LastErrorWins", faults.LastErrorWins},
		{"NoCancelDown", faults.NoCancelDown},
		{"DetachedAttached", faults.DetachedAttached},
		{"SelectNoCleanup", faults.SelectNoCleanup},
		{"ChanCancelNoDequeue", faults.ChanCancelNoDequeue},
		{"CancelledNurseryWaitsForClose", faults.CancelledNurseryWaitsForClose},
		{"NoWaitCycleCheck", faults.NoWaitCycleCheck},
		{"RunIgnoresDoneContext", faults.RunIgnoresDoneContext},
		{"CancelledProducerSkipsBody", faults.CancelledProducerSkipsBody},
		{"PoolGetIgnoresDiscard", faults.PoolGetIgnoresDiscard},
		{"AwaitCancelHidesOutcome", faults.AwaitCancelHidesOutcome},
		{"SelectRepeatAllowed", faults.SelectRepeatAllowed},
		{"LazyCancelIgnored", faults.LazyCancelIgnored},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n, f, err := model.Fuzz(brokenRuntime(tc.fault), 1, faultBudget, model.Config{Exclude: model.KnownOpen}, 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if f == nil {
				t.Fatalf("%d programs passed a runtime with fault %s", n, tc.name)
			}
			t.Logf("caught after %d programs: %.300s", n, f.Error())
		})
	}
}

// brokenRuntime returns a builder of goroutine-backend runtimes with the
// given faults.
func brokenRuntime(f faults.Set) func() (*kc.Runtime, error) {
	opt := faults.Option(f).(kc.Option)
	return func() (*kc.Runtime, error) { return kc.New(goroutine.New(), opt), nil }
}

// TestShrink checks that a failure on a broken runtime shrinks to a
// program that still fails and is no larger.
func TestShrink(t *testing.T) {
	newRT := brokenRuntime(faults.LastErrorWins)
	_, f, err := model.Fuzz(newRT, 1, 200, model.Config{Exclude: testExclude}, 2*time.Second)
	if err != nil || f == nil {
		t.Fatalf("Fuzz: got (%v, %v); want a failure", f, err)
	}
	s := model.Shrink(newRT, f, testExclude, 2*time.Second, 3)
	if len(s.Mismatches) == 0 {
		t.Fatal("shrunk program has no mismatch")
	}
	if got, was := strings.Count(s.Program.String(), "\n"), strings.Count(f.Program.String(), "\n"); got > was {
		t.Fatalf("shrunk program has %d lines; the original %d", got, was)
	}
	if !strings.HasPrefix(s.Error(), "seed ") {
		t.Errorf("error %q does not start with the seed", s.Error())
	}
	t.Logf("%v\n%s", s, s.Program)
}

// TestCatchesCappedWorkers checks that the checker finds a backend that
// stops making progress when more tasks block on what it cannot see than
// it has workers: the stealing backend with its temporary workers capped
// at 8 (as a fixed cap of 64 + 4 per P once made it) hangs on a foreign
// chain. Like the conformance watchdog, the hung program's goroutines are
// left behind.
func TestCatchesCappedWorkers(t *testing.T) {
	newRT := func() (*kc.Runtime, error) {
		e, err := stealing.New(stealing.MaxExtra(8))
		if err != nil {
			return nil, err
		}
		return kc.New(e), nil
	}
	n, f, err := model.Fuzz(newRT, 1, 5*faultBudget, model.Config{}, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Fatalf("%d programs passed a stealing backend with MaxExtra(8)", n)
	}
	t.Logf("caught after %d programs: %.300s", n, f.Error())
}
