// Package kc is the semantics core of kcbench's structured-concurrency
// runtimes: a tree of Kotlin-style jobs with cooperative cancellation,
// supervisors, detached children, deferreds, timeouts, shields, leases and
// Trio-style nurseries, written once on top of a small Executor interface
// that each backend implements (runtimes/goroutine, runtimes/stealing, ...).
//
// A Runtime runs root jobs; every job's body receives its own *Job, which is
// its cancellation source, the parent of the children it launches, and a
// context.Context:
//
//	rt := kc.New(goroutine.New())
//	defer rt.Close()
//	err := rt.Run(ctx, func(j *kc.Job) error {
//		d, _ := kc.Async(j, func(j *kc.Job) (int, error) { return 6 * 7, nil })
//		v, err := d.Await(j)
//		...
//	})
//
// # The state machine
//
// A job is in one of six States (state.go gives each one's meaning):
//
//	Active ──body returns / Close──▶ Closing ──children done──▶ Completed | Failed
//	  │                                 │
//	  └──Cancel / parent / failure──────┴──▶ Cancelling ──body and children done──▶ Failed | Cancelled
//
// plus the shortcut from Active straight to a terminal state when the body
// returns and there are no children left. No transition leaves a terminal
// state; Closing and Cancelling never return to Active.
//
// A nursery from Open has no body: Close (or AwaitAll, or the end of its
// parent's body) plays the part of the body returning. A cancelled nursery
// needs no Close (spec 04 §2.3): once cancelled, directly, by its parent or
// by a failing child, it goes Cancelling -> Cancelled (Failed if a failure
// was recorded) as soon as its children and leases are done, and its
// Join, AwaitAll, TryResult and Done report that. An open nursery that is
// not cancelled ends only on Close, AwaitAll or its parent's body ending.
//
// Who moves a job. Every transition but one is made while holding the
// job's own mutex (Job.mu), by one of:
//   - the goroutine that ran the body, at the end of it (bodyReturned):
//     Active -> Closing, or -> Cancelling if the body failed or returned a
//     cancellation error, and -> terminal if no child or lease holds the job;
//   - a canceller (Cancel, the parent's cancel walk, a WithTimeout timer,
//     Runtime.Close, the Run context): Active or Closing -> Cancelling;
//   - the goroutine that drops the last hold on a job whose body is done: the
//     last child to finish, the last Lease release, the end of a cancel walk
//     (which also ends a nursery's "body"), or Close on a nursery: Closing or
//     Cancelling -> terminal.
//
// The exception is the common end of a job nobody else has touched (no
// waiters, hooks, Done channel, failure or cancellation): it goes to
// Completed with one CAS and no lock (see bitSlow in state.go).
//
// The terminal state is computed once (finishLocked): Failed if a failure was
// recorded and the job was not cancelled by its own timeout first; else
// Cancelled if cancellation was requested; else Completed. So failure
// dominates cancellation in either order (spec 04 §4.4), except after a
// timeout (spec 01 §4.16 invariant 5). Finishing wakes the job's waiters,
// drops its OnCancel hooks unfired, and then, outside the job's lock,
// releases the parent, which may finish the parent in turn. Locks are never
// nested: a child's lock is taken only after its parent's is released
// (listing, the cancel walk's snapshot, a child's end), so the tree cannot
// deadlock on itself.
//
// The state word (Job.state, 64 bits) carries the State in its low bits,
// flags above it (state.go): whether the body was claimed, cancellation
// requested (spec 02 CANCELLED), a shield active (IGNORED), the cancel walk
// begun (Done closed), the body done, the job closed to new children,
// cancelled by its own timeout, and in its high 32 bits the hold count:
// the job's unfinished attached children, its leases and cancel walks in
// progress. The word is only changed with atomic read-modify-write
// operations, so IsCancelled, State and the Await fast path read it with a
// single atomic load, and attaching a child is a CAS (which also checks
// that the job still accepts children) and a child's end an Add. The job
// finishes exactly once, on the goroutine whose operation made "body done
// and no holds" true; holds are never added after that. Go's atomics are
// sequentially consistent: a goroutine that loads a terminal State also sees
// the job's error and value as they were when the state was published,
// which is why Result and Await need no lock.
//
// A child is put on its parent's child list (listed) only when the parent's
// cancel walk must reach it: when it gets an OnCancel hook or a
// cancellable wait, a Done channel or children of its own, or is a nursery.
// The others, typically short bodies that never block, are attached by the
// count alone and learn of the parent's cancellation lazily, from the
// parent's down flag, which the walk sets before it snapshots the list:
// IsCancelled, Check, State, Err and Done consult it, a body that has not
// started is skipped, and a body that returns afterwards ends Cancelled.
// Listing takes the parent's lock and checks the flag there, so a child is
// either in the walk's snapshot or sees the flag and cancels itself.
//
// An executor that runs many tasks on one goroutine may hand the core a
// Worker (Task.RunOn): children of one parent that end in a row on it then
// release the parent once per batch, not once per child, so the parent's
// state word does not move between cores on every child (see Worker for the
// rule that keeps a batch from delaying anyone who could wait for it).
//
// # The cancellation protocol
//
// Cancellation is cooperative and has two halves, as in spec 02.
//
// The request (requestCancelLocked, under Job.mu) is O(1): it sets the
// cancel flag, records the cause (the first one wins, except that an
// explicit Cancel cause replaces a timeout), counts the request, and moves
// the job to Cancelling. From then on IsCancelled and Check report it —
// unless a Shield is active.
//
// The walk (cancelWalk) is O(listed children + hooks) and runs without the
// job's lock held: under the lock it marks the walk begun, sets down (which
// reaches every unlisted child), closes Done, snapshots the listed children
// and detaches the hook list (OnCancel callbacks and the cancellable waits
// of the job: Sleep, and Join/Await with the job as waiter); then, unlocked,
// it cancels each listed child with the same cause (recursively,
// depth-first), wakes each cancellable wait and claims each OnCancel
// callback. The claimed callbacks run on a core task of the executor
// (hookTask), never on the cancelling goroutine, so a walk runs no user
// code; the walk's hold on the job (like a lease) passes to that task and
// is dropped once the callbacks have returned, so no callback outlives its
// job. A callback that calls runtime.Goexit ends the task's goroutine
// only: the task hands the rest of its work to a new one first. A child
// launched after the request is refused (ErrCancelled), so nothing is missed.
// A job whose cancellation arrives as it finishes (its body done and its
// last hold just released) can take no hold: its walk marks itself running
// instead, and the finish waits for the walk's end (walkFinishingLocked),
// so its callbacks still run before it is terminal.
//
// Inside Shield, a request sets the flag and cause but defers the walk: the
// exit of the outermost Shield performs it. A job cancelled before its body
// starts never runs the body; a WithTimeout scope's own timer is armed as
// its body starts (for what is left of the deadline), so with d > 0 the
// timeout never skips the body. A body
// observes cancellation at checkpoints:
// Check, Yield, Sleep, and any wait that takes the job as waiter.
//
// Failures travel up at the end: when a child becomes Failed, its parent
// records the failure (first error wins; Errors keeps them all) and is
// cancelled with the failure as cause, which cancels the siblings — unless
// the parent is a supervisor, or the child is a Scope, SupervisorScope or
// WithTimeout scope, whose failure is returned to the caller instead, or the
// child is detached, whose failure goes nowhere.
//
// The parent's cancel walk runs on the goroutine that finishes the failed
// child: the end of its body, the last of its children, or a Lease release.
// That is what makes the order of a body's own steps decide outcomes: after
// a release that lets a failure out, the failure's parent and its other
// children are cancelled, as after a Cancel. The walk runs no user code
// (its callbacks run on a hookTask), so a release still never does (DESIGN
// "Lease").
//
// # Blocking
//
// Every blocking wait for a job (Join, Await, AwaitAll, WaitAll, the end
// of Scope and Run) registers a wait node under the awaited job's lock,
// re-checking the condition there (spec 05: the commit point is the
// enqueue), then parks through the Executor; Sleep registers only the
// cancel hook on its own job, beside its timer. The first of the possible
// wakers (the job finishing, the waiter's cancellation, a timer) wins a CAS
// on the node's Parker and is the only one to unpark it, so every waiter is
// woken exactly once and no wakeup is lost. Join and Await of an unstarted
// child of the waiting job run the child inline instead of parking (a
// runtime.Goexit in its body then ends the waiting goroutine, and fails
// the waiting job: see ErrGoexit and runInline).
//
// A wait ends with the waiter's cancellation only if its target is still
// not terminal then: a target that finished gives its own outcome, also to
// a waiter cancelled meanwhile (DESIGN "Await"). A failing job cancels its
// parent (the parent's cancel walk included) while it is finishing, before
// it is published terminal, so that whoever sees it terminal (State, Join,
// Await) also sees the parent and its other children cancelled; a wait
// whose waiter is found cancelled while its target is finishing (body
// done, nothing holding it: it becomes terminal without running user code
// of its own) waits for the target's outcome.
// With a parent's failure reaching its own parent only when the parent
// ends, a job that awaits (Join, Await, AwaitAll) a failing descendant and
// is cancelled by that very failure always gets the failure itself, never
// "cancelled: failure", whatever the timing.
//
// A wait that could never end is refused: Join, Await or AwaitAll whose
// waiter is the target itself or an attached descendant of it (which the
// target waits for) returns ErrWaitCycle at once. The check walks up from
// the waiter only on the way to parking, and not at all for the common wait
// of a parent for its child.
//
// # The backend contract
//
// A backend implements Executor's four methods: Spawn, Park, AfterFunc and
// Close, and may implement Yielder (Job.Yield then calls it instead of
// runtime.Gosched). It calls into the core through Task (Run, or RunOn with a
// Worker of its own, and Finished to spot a stale queue entry), Worker (Flush)
// and Parker (Wait or Suspend, and the hints Worker, Quick and Spin). Each
// obligation is documented on the type or method that carries it: Spawn never
// blocks and never runs a task on the caller's stack; Park calls Wait exactly
// once, or hands the wait off with Suspend and returns only after its Resumer
// was called; Run and RunOn may end their goroutine (runtime.Goexit), so a
// goroutine that runs tasks keeps its bookkeeping in deferred calls; a Worker
// is flushed before its goroutine stops running tasks; Spin is never called on
// a goroutine locked to its OS thread; Close waits for every task and every
// goroutine the executor started.
//
// There is no Unpark. The winner of a wake is decided in the core, by a CAS
// on the Parker, and the core signals the Parker itself. A backend whose
// parked task is a blocked goroutine does whatever it does about a wake
// (take a worker slot back, return to its core) in Park after Wait
// returns, on the woken goroutine. A backend whose parked task is a
// suspended coroutine gives the Parker a Resumer (Parker.Suspend), and the
// signal calls its Resume instead of releasing Wait: the backend's one hook
// on the waker's side, which must not block either (handoff.go has the
// protocol). Keeping the wake in the core keeps it from blocking, which
// lets the core wake waiters with a job's lock held.
//
// # Channels, select, actors and producers
//
// Chan is a buffered or rendezvous channel whose blocked operations park
// through the waiting job's executor, like every other wait, and end with the
// job's cancellation error when the job is cancelled; a closed channel returns
// ErrClosed instead of panicking. Select waits on several channel operations
// and performs exactly one. A blocked operation puts a wait node (a sudog, one
// per Select case) on each channel's queue under that channel's mutex; a
// counterpart completes it only after winning the CAS on the waiter's Parker,
// so a handoff and a cancellation can race but exactly one happens: no value is
// lost or received twice (chanwait.go has the protocol). Select first tries its
// cases one at a time, in a random order, each under its own channel's mutex;
// it locks all its channels together only to conclude that none is ready and to
// queue. Actor (a job draining a mailbox with one handler), Produce (a job
// feeding a channel it closes when it ends, with its failure if it failed),
// Pool (an owned pool of at most max items with create and reset hooks) and
// SendTask/RecvTask (spec 05's ordered task channel) are built on Chan. Channel
// waits are not job waiters: they do not count in Stats.WaitersRegistered or
// emit trace events.
//
// # Costs
//
// A Job is 128 bytes on 64-bit platforms (spec 01 §4.20 asks at most 128);
// names, deadlines, extra errors, the shield depth and the Done channel live in
// a separately allocated extra record that most jobs never need. Cancelling a
// tree allocates one cancellation error, shared by every job the walk reaches.
// Launch takes its job from a per-P slab of seven (one 1024-byte allocation
// per seven launches; slab.go); Async allocates one Deferred that embeds its
// job. A blocking wait for a job (Join, Await, AwaitAll, WaitAll) takes its
// wait node from a per-P cache, to which a wait that its target's end woke
// gives it back, if it had no timer and took its own cancel hook off (one that
// was cancelled, timed out, had a timer or whose hook a cancel walk took
// leaves it to the garbage collector: a losing waker may still touch it). Attaching a child is a
// CAS on the parent's state word, with no lock; ending it, one CAS on its own
// and an Add on the parent's (or a share of one, batched by a Worker). Await of
// a finished deferred is one atomic load. Counters are striped by P (the
// counting goroutine's processor slot), one cache line each, and incremented
// without atomics by the pinned P. With no Tracer installed, each trace point
// costs a nil check. A blocked channel operation takes its wait node from the
// channel's own reused nodes (chan.go), allocating one only when none is free;
// one that does not block allocates nothing.
package kc
