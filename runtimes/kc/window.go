package kc

// windowPoint names a place, a statement or two wide, between two atomic
// steps that other goroutines may interleave with, and where no public
// call can stop a goroutine. A kcfaults build lets a test run code there
// (window in faults_on.go) to force the interleaving; an ordinary build's
// window is empty and inlines to nothing.
type windowPoint uint8

const (
	// winWaitAllOr: a WaitAll wait on j holds j.mu and has not yet set
	// bitWaitAll, so a release now does not lock j; wait must judge the
	// holds from the word its Or returns, not from what it read before.
	winWaitAllOr windowPoint = iota
	// winBodyDoneClosing: j's body has ended (bitBodyDone) with holds left
	// and holds j.mu, and j is not yet Closing; the last hold's release,
	// lock-free, may finish j now, and writing Closing must not undo that.
	winBodyDoneClosing
	// winSelectLocked: a Select by j has found no case ready in its first
	// pass and has not yet locked its channels; a case may become ready
	// and j be cancelled now, and the locked pass must judge both afresh
	// (j's cancellation first, then the cases from the random start).
	winSelectLocked
)
