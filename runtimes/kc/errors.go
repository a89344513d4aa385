package kc

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// kcError is a sentinel that also matches a context error, so that code
// written against context (errors.Is(err, context.Canceled)) keeps working.
type kcError struct {
	msg string
	ctx error
}

func (e *kcError) Error() string { return e.msg }
func (e *kcError) Unwrap() error { return e.ctx }

var (
	// ErrCancelled is the cancellation error: a cancelled job's Result,
	// Check inside a cancelled job and a pending Await by a cancelled waiter
	// all return an error that matches it. errors.Is(ErrCancelled,
	// context.Canceled) holds. A body returning an error that matches it
	// ends its job Cancelled instead of Failed.
	ErrCancelled error = &kcError{"kc: cancelled", context.Canceled}

	// ErrTimeout reports that a WithTimeout scope or a WaitAll ran out of
	// time. errors.Is(ErrTimeout, context.DeadlineExceeded) holds. It does not
	// match ErrCancelled: a body that returns it fails its job.
	ErrTimeout error = &kcError{"kc: timeout", context.DeadlineExceeded}

	// ErrClosed is returned by Launch into a Closing job, by Run after
	// Runtime.Close, and by Lease on a terminal job.
	ErrClosed = errors.New("kc: closed")

	// ErrAgain is returned by WaitAll(0) while children are still running.
	ErrAgain = errors.New("kc: children still running")

	// ErrWaitCycle is returned at once by a Join, Await or AwaitAll that
	// could never return: the waiting job is the target itself or an
	// attached descendant of it, which the target waits for. It matches no
	// other error (not ErrCancelled): the wait is refused, nothing was
	// cancelled.
	ErrWaitCycle = errors.New("kc: wait for itself or an ancestor")

	// ErrGoexit is the failure of a job whose body called runtime.Goexit.
	// Goexit ends the goroutine the body runs on, as it always does: a
	// goroutine of the executor, or, for a Scope, SupervisorScope or
	// WithTimeout body, the caller's, or, for a child that Join or Await
	// by its parent ran inline (a child not yet started when the wait
	// began), the waiting goroutine. Then the wait does not return, and
	// every body that goroutine was running fails with ErrGoexit as it
	// unwinds; the waiting job fails with an error that matches ErrGoexit
	// even if it waited from another goroutine. Whether a child was still
	// unstarted when awaited depends on the executor, so a body that may
	// call Goexit should be awaited only by a job that may end with it, or
	// from a goroutine that may end (Await(nil) and Join(nil) never run a
	// body inline). Such a wait and the job's own body add one Goexit
	// between them: once the wait has failed the job, a Goexit of its own
	// body adds nothing to Errors. An OnCancel callback that a cancel walk
	// runs and that calls Goexit fails its job with an error that matches
	// ErrGoexit too, one per such callback (see OnCancel).
	ErrGoexit = errors.New("kc: body called runtime.Goexit")

	// ErrNilBody is returned when a nil body is launched.
	ErrNilBody = errors.New("kc: nil body")

	// ErrFinished is the cause in what Err returns for a job that ended
	// without being cancelled: that error matches ErrCancelled (and
	// context.Canceled), as a context's Err must once Done is closed, and
	// ErrFinished, which tells it from a cancellation.
	ErrFinished = errors.New("kc: job finished")
)

// errInlineGoexit fails a job on whose behalf a Join or Await ran a child
// inline that called runtime.Goexit, which ended the waiting goroutine
// (runInline).
var errInlineGoexit = fmt.Errorf("kc: a child run inline by Join or Await called runtime.Goexit: %w", ErrGoexit)

// errHookGoexit fails a job one of whose OnCancel callbacks, run by its
// cancel walk, called runtime.Goexit (hookTask.call).
var errHookGoexit = fmt.Errorf("kc: an OnCancel callback called runtime.Goexit: %w", ErrGoexit)

// cancelError is the Result of a cancelled job and what Check returns inside
// one. It matches ErrCancelled and unwraps to the cause given to Cancel.
type cancelError struct {
	cause error // nil for a plain Cancel(nil)
}

func (e *cancelError) Error() string {
	if e.cause == nil {
		return ErrCancelled.Error()
	}
	return ErrCancelled.Error() + ": " + e.cause.Error()
}

// Is matches ErrCancelled (and so context.Canceled) without Unwrap, which
// allocates: errors.Is(err, ErrCancelled) runs on every job a cancellation
// ends, and must not cost an allocation per job.
func (e *cancelError) Is(target error) bool {
	return target == ErrCancelled || target == context.Canceled
}

func (e *cancelError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrCancelled}
	}
	return []error{ErrCancelled, e.cause}
}

// errFinished is what Err reports for a job that ended without being
// cancelled: its Done channel is closed, so Err must not be nil.
var errFinished error = &cancelError{cause: ErrFinished}

// PanicError is the failure of a job whose body, OnCancel callback or actor
// handler panicked. The panic is recovered: no goroutine of the runtime dies.
type PanicError struct {
	Value any    // the value passed to panic
	Stack []byte // the panicking goroutine's stack, from runtime/debug.Stack
}

func (e *PanicError) Error() string { return fmt.Sprintf("kc: panic: %v", e.Value) }

// Unwrap returns the panic value if it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// TimeoutError is what WithTimeout returns when its own timer ended the scope.
// It matches ErrTimeout (and so context.DeadlineExceeded) but not ErrCancelled.
type TimeoutError struct {
	After time.Duration // the duration given to WithTimeout
}

func (e *TimeoutError) Error() string { return fmt.Sprintf("kc: timeout after %v", e.After) }
func (e *TimeoutError) Unwrap() error { return ErrTimeout }
