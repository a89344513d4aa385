//go:build !kcfaults

package kc

// An ordinary build has no fault injection (see faults_on.go, compiled with
// the kcfaults tag): faultSet is empty, has and on are constant false and
// inlined, so every fault check compiles away, and kc does not import
// internal/faults.

// faultSet is the set of faults a Runtime was built with: none.
type faultSet struct{}

// fault is one of the faults; here they are all zero.
type fault uint8

// has reports false: no fault is ever switched on.
func (faultSet) has(fault) bool { return false }

// on reports false: no fault is ever switched on.
func (faultSet) on() bool { return false }

// listsEagerly reports false: children are listed lazily.
func (faultSet) listsEagerly() bool { return false }

// The faults of internal/faults, by the same names.
const (
	faultNoWaitChildren fault = 0
	faultNoCancelSiblings
	faultSupervisorPropagates
	faultLostJoinWakeup
	faultDoubleCount
	faultShieldNoDefer
	faultLastErrorWins
	faultNoCancelDown
	faultDetachedAttached
	faultTimeoutOverridesFailure
	faultSelectNoCleanup
	faultChanCancelNoDequeue
	faultCancelledNurseryWaitsForClose
	faultNoWaitCycleCheck
	faultRunIgnoresDoneContext
	faultCancelledProducerSkipsBody
	faultPoolGetIgnoresDiscard
	faultAwaitCancelHidesOutcome
	faultSelectRepeatAllowed
	faultFailurePublishedFirst
	faultLazyCancelIgnored
	faultChanCommitAfterCancel
	faultDeadlineNearestWins
	faultWithTimeoutZeroRunsBody
	faultLeaseReleaseUnguarded
	faultYieldIgnoresShield
	faultResultBeforeTerminal
	faultFinishingWalkSkipped
	faultOnCancelPanicSwallowed
	faultOnCancelGoexitAbandons
	faultHooksOnCanceller
)

// window does nothing: only a kcfaults build lets a test stop at a
// windowPoint.
func window(windowPoint, *Job) {}
