//go:build kcfaults

package conformance_test

// The core faults: the suite against the core with one fault of
// internal/faults switched on. Like every test that uses faults, this file
// builds only with the kcfaults tag (go test -tags kcfaults ./conformance/...,
// which .ci/run runs).

import (
	"testing"

	"github.com/kcbench/kcbench/internal/faults"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestBrokenCore checks that the suite rejects the core with each fault
// switched on, first in a case written to catch that fault.
func TestBrokenCore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault faults.Set
		want  []string // the first failing case is one of these
	}{
		{"ParentDoesNotWaitForChildren", faults.NoWaitChildren, []string{"ScopeThreeChildren"}},
		{"FailureDoesNotCancelSiblings", faults.NoCancelSiblings, []string{"ChildFailureCancelsSiblings"}},
		{"SupervisorPropagatesFailures", faults.SupervisorPropagates, []string{"SupervisorIgnoresChildFailure"}},
		{"LostWakeupOnJoin", faults.LostJoinWakeup, []string{"ScopeThreeChildren"}},
		{"DoubleCountedCounter", faults.DoubleCount, []string{"NurseryConcurrentCompletion", "CountersExact"}},
		{"ShieldDoesNotDeferCancelWalk", faults.ShieldNoDefer, []string{"ShieldCancelInside"}},
		{"LastErrorWins", faults.LastErrorWins, []string{"FirstErrorWins"}},
		{"CancelDoesNotGoDown", faults.NoCancelDown, []string{"ChildFailureCancelsSiblings", "CancelBeforeChildrenStart"}},
		{"DetachedChildAttached", faults.DetachedAttached, []string{"DetachedChildFailure"}},
		{"TimeoutOverridesFailure", faults.TimeoutOverridesFailure, []string{"ExplicitCauseOverTimeout", "FailureBeforeTimeout"}},
		{"SelectLeavesLosingNodes", faults.SelectNoCleanup, []string{"SelectWakeAndCleanup"}},
		{"CancelledChanWaitStaysQueued", faults.ChanCancelNoDequeue, []string{"ChanCancelBlockedRecv"}},
		{"CancelledNurseryWaitsForClose", faults.CancelledNurseryWaitsForClose, []string{"NurseryCancelledEndsWithoutClose"}},
		{"WaitOnAncestorHangs", faults.NoWaitCycleCheck, []string{"WaitOnSelfOrAncestor"}},
		{"RunIgnoresDoneContext", faults.RunIgnoresDoneContext, []string{"RunCancelledContext"}},
		{"SelectRepeatedCaseQueuedTwice", faults.SelectRepeatAllowed, []string{"SelectRepeatedCase"}},
		{"AwaitOfFailingChildCancelled", faults.AwaitCancelHidesOutcome, []string{"AwaitFailingChildAnyTiming"}},
		{"DiscardWakesNoGet", faults.PoolGetIgnoresDiscard, []string{"PoolDiscardWakesGet"}},
		{"FailurePublishedBeforeParentCancelled", faults.FailurePublishedFirst, []string{"JoinFailedChildSeesParentCancelled"}},
		{"LazyCancelReplacesCause", faults.LazyCancelIgnored, []string{"LazyCancelFirstCauseWins"}},
		{"ChanCommitsAfterCancel", faults.ChanCommitAfterCancel, []string{"CancelledProducerSendsNothing", "ChanWaitWokenDuringCancelWalk"}},
		{"DeadlineNearestWins", faults.DeadlineNearestWins, []string{"DeadlineInheritance"}},
		{"WithTimeoutZeroRunsBody", faults.WithTimeoutZeroRunsBody, []string{"WithTimeoutNonPositive"}},
		{"LeaseReleaseUnguarded", faults.LeaseReleaseUnguarded, []string{"LeaseReleaseTwiceKeepsChildHold"}},
		{"YieldIgnoresShield", faults.YieldIgnoresShield, []string{"ShieldHidesCancelFromWaits"}},
		{"ResultBeforeTerminal", faults.ResultBeforeTerminal, []string{"ResultNilUntilTerminal"}},
		{"FinishingWalkSkipped", faults.FinishingWalkSkipped, []string{"OnCancelWhenCancelMeetsFinish"}},
		{"OnCancelPanicSwallowed", faults.OnCancelPanicSwallowed, []string{"OnCancelPanicAtOnce"}},
		{"OnCancelGoexitAbandons", faults.OnCancelGoexitAbandons, []string{"OnCancelGoexit"}},
		{"HooksOnCanceller", faults.HooksOnCanceller, []string{"OnCancelGoexit", "OnCancelOffCanceller", "LeaseReleaseRunsNoUserCode"}},
		{"CancelledProducerLeavesChannelOpen", faults.CancelledProducerSkipsBody, []string{"ProduceCancelledBeforeStart", "ActorCancelledBeforeStart"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opt := faults.Option(tc.fault).(kc.Option)
			checkCaught(t, func() (*kc.Runtime, error) { return kc.New(goroutine.New(), opt), nil }, tc.want...)
		})
	}
}
