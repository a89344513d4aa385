//go:build kcfaults

package kc

import (
	"sync/atomic"

	"github.com/kcbench/kcbench/internal/faults"
)

// This file and faults_off.go are the core's side of fault injection
// (internal/faults): the conformance suite's self-test builds runtimes with
// one fault switched on and checks that the suite rejects them. The
// injection exists only in builds with the kcfaults tag; faults_off.go,
// compiled otherwise, makes every check constant false.

// faultSet is the set of faults a Runtime was built with (Runtime.faults,
// immutable after New). Zero outside the fault tests.
type faultSet faults.Set

// fault is one of the faults, named as in internal/faults.
type fault = faults.Set

// has reports whether f is switched on.
func (s faultSet) has(f fault) bool { return faults.Set(s)&f != 0 }

// on reports whether any fault is switched on: such a runtime takes the
// slow paths everywhere (see attach and bodyReturned), so that every fault
// check is reached.
func (s faultSet) on() bool { return s != 0 }

// listsEagerly reports whether attach lists every child at once (see
// attach): with any fault on, except those that break the lazy path of
// unlisted children, which must keep it to be caught.
func (s faultSet) listsEagerly() bool {
	return s != 0 && faults.Set(s)&(faults.LazyCancelIgnored|faults.ChanCommitAfterCancel) == 0
}

func init() {
	faults.Option = func(s faults.Set) any { return Option(func(c *config) { c.faults |= faultSet(s) }) }
}

const (
	faultNoWaitChildren                = faults.NoWaitChildren
	faultNoCancelSiblings              = faults.NoCancelSiblings
	faultSupervisorPropagates          = faults.SupervisorPropagates
	faultLostJoinWakeup                = faults.LostJoinWakeup
	faultDoubleCount                   = faults.DoubleCount
	faultShieldNoDefer                 = faults.ShieldNoDefer
	faultLastErrorWins                 = faults.LastErrorWins
	faultNoCancelDown                  = faults.NoCancelDown
	faultDetachedAttached              = faults.DetachedAttached
	faultTimeoutOverridesFailure       = faults.TimeoutOverridesFailure
	faultSelectNoCleanup               = faults.SelectNoCleanup
	faultChanCancelNoDequeue           = faults.ChanCancelNoDequeue
	faultCancelledNurseryWaitsForClose = faults.CancelledNurseryWaitsForClose
	faultNoWaitCycleCheck              = faults.NoWaitCycleCheck
	faultRunIgnoresDoneContext         = faults.RunIgnoresDoneContext
	faultCancelledProducerSkipsBody    = faults.CancelledProducerSkipsBody
	faultPoolGetIgnoresDiscard         = faults.PoolGetIgnoresDiscard
	faultAwaitCancelHidesOutcome       = faults.AwaitCancelHidesOutcome
	faultSelectRepeatAllowed           = faults.SelectRepeatAllowed
	faultFailurePublishedFirst         = faults.FailurePublishedFirst
	faultLazyCancelIgnored             = faults.LazyCancelIgnored
	faultChanCommitAfterCancel         = faults.ChanCommitAfterCancel
	faultDeadlineNearestWins           = faults.DeadlineNearestWins
	faultWithTimeoutZeroRunsBody       = faults.WithTimeoutZeroRunsBody
	faultLeaseReleaseUnguarded         = faults.LeaseReleaseUnguarded
	faultYieldIgnoresShield            = faults.YieldIgnoresShield
	faultResultBeforeTerminal          = faults.ResultBeforeTerminal
	faultFinishingWalkSkipped          = faults.FinishingWalkSkipped
	faultOnCancelPanicSwallowed        = faults.OnCancelPanicSwallowed
	faultOnCancelGoexitAbandons        = faults.OnCancelGoexitAbandons
	faultHooksOnCanceller              = faults.HooksOnCanceller
)

// windowHook, when a kcfaults test has set it, runs at every windowPoint
// that any goroutine reaches, on that goroutine, with the job concerned
// (which may be any job of any runtime: the hook must filter). It may hold
// j.mu there, so the hook must not lock j. An atomic pointer, so that a
// test can set and clear it while other goroutines pass the points.
var windowHook atomic.Pointer[func(windowPoint, *Job)]

// window runs windowHook, if set.
func window(p windowPoint, j *Job) {
	if h := windowHook.Load(); h != nil {
		(*h)(p, j)
	}
}
