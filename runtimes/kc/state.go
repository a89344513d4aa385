package kc

// State is a job's place in the state machine (see the package doc).
type State uint8

const (
	// Active: the job accepts children; its body may be running.
	// Legal next states: Closing, Cancelling, and (when it has no children
	// left once its body returns) Completed, Failed or Cancelled directly.
	Active State = iota
	// Closing: the body has returned or Close was called; new children are
	// refused with ErrClosed and the job waits for the ones it has.
	// Legal next states: Cancelling, Completed, Failed.
	Closing
	// Cancelling: cancellation was requested (by Cancel, a parent, a timeout
	// or a failure); children have been or are being cancelled and the job
	// waits for them and its body. Legal next states: Failed, Cancelled.
	Cancelling
	// Completed: terminal; body and children finished without failure or
	// cancellation.
	Completed
	// Failed: terminal; the body failed, or (unless a supervisor) a child
	// did. Result is the first failure.
	Failed
	// Cancelled: terminal; the job was cancelled and no failure dominates.
	// Result wraps ErrCancelled and the cause.
	Cancelled
)

var stateNames = [...]string{"Active", "Closing", "Cancelling", "Completed", "Failed", "Cancelled"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "State(?)"
}

// Terminal reports whether s is Completed, Failed or Cancelled.
func (s State) Terminal() bool { return s >= Completed }

// The state word (Job.state) holds the State in its low 3 bits, the flags
// below above it, and in its high 32 bits the hold count: one per attached
// non-detached child that is not yet terminal, per Lease, and per cancel
// walk in progress (which holds the job while its OnCancel hooks run).
//
// Every write is an atomic read-modify-write (Or, And, Add, CAS), never a
// plain Store after publication, because writers run on several goroutines
// at once: attach and Lease add holds by CAS without a lock; releases
// subtract them by Add; the claim and bitSlow are Ors; bitListed is set by
// a CAS under the parent's mutex (Job.list) and cleared, only after the
// parent's cancel walk took the job off the list, by the CAS under Job.mu
// that cancels a leaf (cancelLeafLocked); everything else is changed under
// Job.mu.
//
// The job finishes exactly once, on the goroutine whose read-modify-write
// made "bitBodyDone set and no holds" true: the body's end (or a nursery's
// Close) when no holds are left, or the release of the last hold after the
// body's end. Holds are never added once that is true (attach, Lease and the
// walk check it in their CAS), so the condition cannot be made true twice.
// One hand-off moves the finish to another goroutine: a cancellation
// recorded on a job that is finishing but not yet terminal still has its
// OnCancel callbacks run before the job is terminal, with no hold: its
// walk marks itself running (bitWalking) until its hookTask has run them;
// the finisher that finds the mark under Job.mu sets
// bitFinishDeferred and leaves, and the walk's end finishes the job
// (walkFinishingLocked). Either way one goroutine runs finishLocked to the
// end.
//
// bitSlow pins the finish to the locked path: any goroutine other than the
// body's that takes Job.mu to register something on the job (a waiter, a
// hook, a Done channel, a failure, a cancellation) sets it first (lockSlow).
// A finisher that sees it clear, and no cancellation, finishes with one CAS
// and no lock; one that loses that CAS to an Or of bitSlow takes the lock.
const (
	stateMask         uint64 = 0x7
	bitClaimed        uint64 = 1 << (iota + 2) // the body has been claimed to run (by Task.Run or inline)
	bitCancel                                  // cancellation requested (spec 02 CANCELLED)
	bitShield                                  // shield depth > 0 (spec 02 IGNORED)
	bitWalked                                  // the cancel walk began or the job is terminal: Done is closed
	bitBodyDone                                // the body returned, or the nursery was closed or its cancel walk began
	bitClosed                                  // no new children: Closing or later
	bitTimedOut                                // cancelled by its own timeout (and not replaced)
	bitHasOpen                                 // some child was made by Open and may need auto-closing
	bitSlow                                    // waiters, hooks, a failure, a cancellation or a Done channel: finish under mu
	bitListed                                  // put on its parent's child list (see Job.list), and not yet known to be off it
	bitWaitAll                                 // a WaitAll waiter may be registered: the release of the last hold must wake it
	bitEnded                                   // the body returned, or the nursery was closed, and its nurseries were collected for auto-closing (under mu)
	bitWalking                                 // a walk of a finishing job is firing its hooks (walkFinishingLocked): the finish waits for its end (under mu)
	bitFinishDeferred                          // the finisher found bitWalking and left the finish to the walk's end (under mu)

	holdShift        = 32
	oneHold   uint64 = 1 << holdShift
)

// holds returns the hold count of state word s.
func holds(s uint64) uint64 { return s >> holdShift }

// finishing reports whether s is a state in which the job is being (or has
// been) finished: its body is done and nothing holds it. No hold may be
// added then.
func finishing(s uint64) bool { return s&bitBodyDone != 0 && holds(s) == 0 }

// terminal reports whether j is in a terminal state (one atomic load; unlike
// State, it never records a parent's cancellation, so it may be called with
// locks held).
func (j *Job) terminal() bool { return stateOf(j.state.Load()).Terminal() }

// stateOf returns the State in state word s.
func stateOf(s uint64) State { return State(s & stateMask) }
