// Package model is a model-based random checker for the kc runtimes: it
// generates random programs over the kc API, runs each on a real runtime,
// and compares every observable outcome with an executable model of
// DESIGN.md's decided semantics. Like package conformance it does not
// import testing; `kcbench conform -fuzz N` and this package's tests (and
// its native fuzz target) drive it.
//
// # Programs
//
// A Program is plain data (an AST of Ops, see prog.go), printed by String
// as Go-like text and generated from a seed by Generate (math/rand/v2's
// PCG: the same seed and Config give the same program). A body (Block) is
// a list of ops and an End: return nil, return a failure, panic, return
// Check(), or wait until cancelled (Sleep, a channel Recv, Send or Select
// that nobody completes) and then return the wait's error, nil or a
// failure. The ops cover Launch (plain, Supervisor, Detached) and Async,
// Join and Await, Scope, SupervisorScope, WithTimeout, Open, Close,
// AwaitAll and TryResult on nurseries, Cancel (with a cause) of the job
// itself, a child or a nursery, Check (with Err, IsCancelled and Done),
// Sleep and Yield, WaitAll, Shield, OnCancel (a callback that may panic)
// and its stop, Lease and release, State, Select, waits on the job itself
// or an ancestor, and composite steps for producers, actors, pools and a
// foreign chain (a scope of 300 children each blocked on a plain Go
// channel that the one before closes, the releasing one launched last: it
// ends only on a backend that keeps making progress whatever its tasks
// block on).
//
// # The model
//
// Model interprets a program sequentially and deterministically. A child's
// body runs, in the model, when it is launched, depth first, up to its end
// or its wait; a cancellation walks the tree at once, as kc's cancel walk
// does, and ends the waiting bodies it reaches. The model follows DESIGN.md
// (also where runtimes/kc may still differ): states and their transitions,
// refusals (ErrCancelled, ErrClosed), first error wins, failure over
// cancellation except after a timeout, causes (the first wins, an explicit
// cause replaces a timeout), supervisors, detached jobs, scopes returning
// their failure, a cancelled nursery ending once its children are done,
// a finished target giving its own outcome to a waiter, Shield deferring
// the walk, OnCancel at most once, leases holding a job open, and the
// counters. It gives each job's final state, Result, Errors and whether its
// body ran, each op's observations, each OnCancel callback's calls, and the
// Stats counters.
//
// # Determinism rules: what the checker checks
//
// A real run is concurrent, so the checker only compares what a program
// determines. The generator keeps these rules, and Model rejects a program
// that breaks one (ErrInvalid), which is also how the shrinker discards a
// candidate:
//
//  1. Synchronised cancellation. A cancellation (Cancel, a failure that
//     cancels a parent, a failing body, a Shield's exit, Runtime.Close)
//     may reach only jobs whose progress its canceller knows: jobs joined
//     (Join, Await, AwaitAll), jobs ready (their body ran all its ops and
//     waits for its cancellation: Ready waits for the signal the body
//     sends before its end), and insensitive jobs (no ops, wait at once,
//     return the wait's error: started or not, they end the same way,
//     and whether their body ran is not compared).
//  2. Contained concurrency. A child that its parent does not join at once
//     runs concurrently with the parent's next ops, so it must not fail
//     into a running job (unless a supervisor or detachment absorbs its
//     failure), and the parent must not observe it before joining it.
//  3. Failures on their way. A failure that reaches a running job at an
//     unknown moment (from a child that ends after a cancellation the job
//     requested) is waited for by the job's next op, a Join or AwaitAll of
//     its source, which returns the source's outcome however the two race;
//     or the body returns nil at once, closing no nursery that would end at
//     that close.
//  4. Waits that end. A cancelled job waits only for jobs known to be
//     terminal; nothing waits for a job that only a later step of the
//     waiter could end; every waiting body is eventually cancelled (a body
//     with waiting descendants cancels itself or fails before it returns).
//  5. Time. WithTimeout's duration is 0 (the body is skipped), an hour
//     (never fires while the program runs), or a millisecond with a body
//     that waits for its cancellation at once. No other op depends on time.
//  6. Observation. State (with Done, Err and IsCancelled), TryResult,
//     stop of an OnCancel callback and Lease apply only to settled jobs:
//     nothing in their subtree runs unsynchronised or is ending after a
//     cancellation (a job whose cancel walk claimed OnCancel callbacks is
//     ending until it is joined: they run on the executor, after Cancel
//     has returned, and hold it; and a job that the end of its last child
//     ended is ending until it is joined: kc publishes the child terminal
//     before it releases the parent, so a Join that finds the child ended
//     may return first).
//  7. Unordered failures. Failures that jobs record as they end after one
//     cancellation, concurrently, are compared as a multiset (the tail of
//     Errors from the first of them); a Result that is one of them may be
//     any of them. A panicking OnCancel callback's failure is unordered with
//     the body it belongs to, and so is its job's failure reaching the
//     parent (the callback runs on the executor, after the walk has woken
//     other bodies).
//
// # What is compared
//
// Run's error; every op's observations (errors by class: nil, the very
// failure or cause error, a *PanicError by value, a cancellation error by
// its cause, ErrTimeout and *TimeoutError, ErrClosed and *ChanClosedError
// by cause; the context view, Done and Err, and IsCancelled of the
// running job at Check and of a settled job at State); ops that ran and did not; every job's State, Result and Errors
// after Runtime.Close, and whether its body ran; wait nodes left on a
// cancelled wait's channels; OnCancel calls; JobsCreated,
// CancellationsRequested, JobsFailed, JobsCompleted, JobsCancelled, and
// WaitersWoken == WaitersRegistered (the two alone depend on timing). A
// run that does not end within the watchdog is a mismatch ("hung").
//
// # Known-open defects
//
// Exclude names runtime defects that were open when the checker was
// written, some of them found by it; a Config's Exclude leaves their
// programs out (and ExclJoinOutcome forgives "cancelled: e" where a wait
// wants e), so that a test can pass on a runtime that still has them.
// KnownOpen is those still open in runtimes/kc (none now); each
// constant's doc says what it avoids and why. Removing one from a run on a
// runtime that still has the defect makes the checker find it, most within
// a few dozen programs (the races behind ExclFailureAfterJoin and
// ExclChanCommitAfterCancel need thousands).
//
// # What it cannot check
//
// The order of a timer and a body's progress: a WithTimeout timer that
// fires between a failure and its scope's end (faults.TimeoutOverridesFailure)
// cannot be ordered without a race against the clock, so no program relies
// on it. Timing-dependent outcomes in general (WaitersRegistered, which
// waits found their target finished) are not compared.
//
// # Cost
//
// A program has up to Config.MaxOps ops (default 40) and runs on a fresh
// runtime; on two cores a backend checks about 2,000 programs a second.
package model
