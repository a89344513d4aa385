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

// Bits of Job.state above the State. All are set with atomic RMW while
// holding Job.mu, except two lock-free writers: the bitClaimed Or, and the
// fast finish (Job.bodyReturned), a CAS from exactly "Active, claimed" to
// Completed made by the body's goroutine without taking mu. So holders of mu
// use RMW operations, never a plain Store; and any goroutine other than the
// body's that takes mu to change or register something on the job first sets
// bitSlow (lockSlow). The Or that sets bitSlow and the fast-finish CAS are
// ordered: if the CAS came first, the Or's result shows the terminal state;
// if the Or came first, the CAS fails and the body takes the locked path.
const (
	stateMask   uint32 = 0x7
	bitClaimed  uint32 = 1 << (iota + 2) // the body has been claimed to run (by Task.Run or inline)
	bitCancel                            // cancellation requested (spec 02 CANCELLED)
	bitShield                            // shield depth > 0 (spec 02 IGNORED)
	bitWalked                            // the cancel walk ran or the job is terminal: Done is closed
	bitBodyDone                          // the body returned, or the nursery was closed
	bitClosed                            // no new children: Closing or later
	bitTimedOut                          // cancelled by its own timeout (and not replaced)
	bitHasOpen                           // some child was made by Open and may need auto-closing
	bitSlow                              // the job has had waiters, hooks, children, leases or a Done channel: it must finish under mu
)
