package kc

// EventKind names a trace event (spec 01 "Observability").
type EventKind uint8

const (
	// EvJobCreate: a job was created (before it is attached or runs).
	EvJobCreate EventKind = iota + 1
	// EvJobChildAttach: the job was linked into its parent's child list.
	EvJobChildAttach
	// EvJobState: the job moved to Event.State (Closing, Cancelling, or a
	// terminal state).
	EvJobState
	// EvJobCancelReq: cancellation of the job was requested and accepted.
	EvJobCancelReq
	// EvJobFinalize: the job is terminal and has released its parent; it is
	// the job's last event.
	EvJobFinalize
	// EvJobWaitRegister: a waiter registered on the job's waiter list.
	EvJobWaitRegister
	// EvJobWaitWake: a waiter registered on the job was woken.
	EvJobWaitWake
)

var eventNames = [...]string{"", "JOB_CREATE", "JOB_CHILD_ATTACH", "JOB_STATE",
	"JOB_CANCEL_REQ", "JOB_FINALIZE", "JOB_WAIT_REGISTER", "JOB_WAIT_WAKE"}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && k > 0 {
		return eventNames[k]
	}
	return "EventKind(?)"
}

// Event is one trace event.
type Event struct {
	Kind   EventKind
	Job    *Job   // the job the event is about
	Parent *Job   // EvJobCreate, EvJobChildAttach: the parent (nil for a root)
	State  State  // EvJobState, EvJobFinalize: the state entered
	Waiter uint64 // EvJobWaitRegister, EvJobWaitWake: a per-wait id
}

// Tracer receives trace events. Events about one job arrive in a legal order
// (create, attach, states in state-machine order, finalize last; a waiter's
// wake after its register): the create and the attach are emitted by the
// launching goroutine before the job is published, the others while the
// job's lock is held. Events of different jobs come from different
// goroutines and may interleave in any order, so Trace must be safe for
// concurrent use; it must also be quick, and must not call back into the job
// the event is about.
type Tracer interface {
	Trace(e Event)
}

// TracerFunc adapts a function to a Tracer.
type TracerFunc func(Event)

// Trace calls f(e).
func (f TracerFunc) Trace(e Event) { f(e) }

func (rt *Runtime) trace(e Event) {
	if rt.tracer != nil {
		rt.tracer.Trace(e)
	}
}
