//go:build kcfaults

// Package faults lets tests build deliberately broken runtimes, so that the
// conformance suite can be shown to catch real bugs (like testing/fstest's own
// tests against broken file systems).
//
// The package exists only in builds with the kcfaults tag, and so does the
// fault injection in the core (runtimes/kc): an ordinary build of kc neither
// imports this package nor contains a fault check (each one is a call to a
// method that is constant false there and compiles away). A test file that
// uses faults starts with
//
//	//go:build kcfaults
//
// and runs with go test -tags kcfaults (.ci/run runs the conformance tree
// and runtimes/kc that way); without the tag it is not compiled, and a file that forgets
// the constraint fails to build, since every file of this package is
// excluded. Nothing outside this module can import the package, so users
// cannot switch a fault on.
package faults

// Set is a bit set of injected faults.
type Set uint32

const (
	// NoWaitChildren: a job becomes terminal as soon as its body returns,
	// without waiting for its children.
	NoWaitChildren Set = 1 << iota
	// NoCancelSiblings: a failing child is recorded by its parent, but the
	// parent is not cancelled, so its other children keep running.
	NoCancelSiblings
	// SupervisorPropagates: a supervisor treats child failures like a plain job.
	SupervisorPropagates
	// LostJoinWakeup: the first waiter registered on a job is never woken.
	LostJoinWakeup
	// DoubleCount: JobsCompleted counts every completion twice.
	DoubleCount
	// ShieldNoDefer: a cancel that arrives inside Shield walks the job's
	// children and hooks at once instead of at shield exit.
	ShieldNoDefer
	// LastErrorWins: each new failure replaces the job's Result.
	LastErrorWins
	// NoCancelDown: cancelling a job does not cancel its children.
	NoCancelDown
	// DetachedAttached: a detached child is linked to its parent like any
	// other child (waited for, cancelled with it, failing it).
	DetachedAttached
	// TimeoutOverridesFailure: a timeout that fires after a failure is recorded
	// overrides it, so the outcome is Cancelled instead of Failed.
	TimeoutOverridesFailure
	// SelectNoCleanup: a Select woken by one case leaves its wait nodes on
	// the other cases' channels.
	SelectNoCleanup
	// ChanCancelNoDequeue: a channel operation woken by cancellation leaves
	// its wait node on the channel's queue.
	ChanCancelNoDequeue
	// CancelledNurseryWaitsForClose: a cancelled nursery from Open stays
	// Cancelling until Close, AwaitAll or its parent's body ends it, even
	// once its children are done.
	CancelledNurseryWaitsForClose
	// NoWaitCycleCheck: a Join, Await or AwaitAll by the target itself or
	// by a descendant of it waits (forever) instead of returning
	// ErrWaitCycle.
	NoWaitCycleCheck
	// RunIgnoresDoneContext: Run with a context that is already done leaves
	// its cancellation to context.AfterFunc's goroutine, which may come
	// after the body ran and returned nil.
	RunIgnoresDoneContext
	// CancelledProducerSkipsBody: an actor or producer cancelled before its
	// body starts skips the body, which would have closed its channel, so
	// its senders or receivers wait forever.
	CancelledProducerSkipsBody
	// PoolGetIgnoresDiscard: a Get that waits on a full pool waits for a
	// Put only, so a Discard (or a failed create) does not wake it.
	PoolGetIgnoresDiscard
	// AwaitCancelHidesOutcome: a pending Join or Await woken by the
	// waiter's cancellation returns the cancellation even when the target
	// is terminal by then (a waiter cancelled by the failure of the child it
	// awaits gets "cancelled: failure" instead of the failure).
	AwaitCancelHidesOutcome
	// SelectRepeatAllowed: Select takes one case value given twice, and
	// queues its one wait node twice on the channel.
	SelectRepeatAllowed
	// FailurePublishedFirst: a failed child is published terminal before
	// its failure cancels its parent, so a Join or State that sees it
	// terminal may find the parent still accepting children.
	FailurePublishedFirst
	// LazyCancelIgnored: Cancel of a job that its parent's cancellation
	// reached only lazily (the job was not on the parent's child list when
	// the parent's walk ran) does not look at it: it returns true and
	// replaces the cause. Unlike the other faults, it keeps kc's lazy child
	// lists, so that the lazy path it breaks is taken.
	LazyCancelIgnored
	// ChanCommitAfterCancel: a channel operation hands its value to (or
	// takes it from) a blocked counterpart without looking at the
	// counterpart's job, so a job whose cancellation has not woken its
	// wait (reached it lazily, or came before its cancel hook) still
	// completes its Send or Recv. Keeps kc's lazy child lists like
	// LazyCancelIgnored.
	ChanCommitAfterCancel
	// DeadlineNearestWins: Deadline returns the nearest deadline found going
	// up the tree (the innermost scope's), not the earliest of them.
	DeadlineNearestWins
	// WithTimeoutZeroRunsBody: WithTimeout(0) runs its body (only a negative
	// duration skips it).
	WithTimeoutZeroRunsBody
	// LeaseReleaseUnguarded: calling a lease's release twice drops two holds,
	// the second one another child's or lease's.
	LeaseReleaseUnguarded
	// YieldIgnoresShield: Yield reports a cancellation that arrived inside a
	// Shield (it reads the cancel flag, not IsCancelled).
	YieldIgnoresShield
	// ResultBeforeTerminal: Result returns the first failure as soon as it
	// is recorded, before the job is terminal.
	ResultBeforeTerminal
	// FinishingWalkSkipped: a cancellation recorded on a job that is
	// finishing (its body done, its last hold just released) gets no walk,
	// so the job ends Cancelled with its OnCancel callbacks never run.
	FinishingWalkSkipped
	// OnCancelPanicSwallowed: a panic in an OnCancel callback that runs at
	// once (the job already cancelled) is recovered and dropped instead of
	// reaching the caller.
	OnCancelPanicSwallowed
	// OnCancelGoexitAbandons: an OnCancel callback that calls
	// runtime.Goexit ends the task running the walk's callbacks with it:
	// the callbacks left and the walk's end never run, and the job never
	// finishes.
	OnCancelGoexitAbandons
	// HooksOnCanceller: a cancel walk runs the OnCancel callbacks it
	// claims on the cancelling goroutine, before Cancel returns, instead of
	// on the executor.
	HooksOnCanceller
)

// Option converts a Set into a kc.Option (returned as any to avoid an import
// cycle): faults.Option(s).(kc.Option). The kc package installs it in its
// init function, in its kcfaults build.
var Option func(Set) any
