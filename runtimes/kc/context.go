package kc

import (
	"fmt"
	"time"
)

// closedChan is what Done returns for a job whose cancel walk already ran.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Deadline returns the earliest deadline of the WithTimeout scopes j is in
// and of the Run context. A detached job is not cancelled with its parent,
// so it does not inherit its parent's deadlines.
func (j *Job) Deadline() (deadline time.Time, ok bool) {
	for a := j; a != nil; a = a.parent {
		var d time.Time
		switch {
		case a.flags&flagDeadline != 0:
			d = a.x.deadline
		case a.parent == nil && a.x != nil && a.x.ctx != nil:
			d, _ = a.x.ctx.Deadline()
		}
		if !d.IsZero() && j.rt.faults.has(faultDeadlineNearestWins) {
			return d, true
		}
		if !d.IsZero() && (!ok || d.Before(deadline)) {
			deadline, ok = d, true
		}
		if a.flags&flagDetached != 0 {
			break
		}
	}
	return deadline, ok
}

// Done returns a channel closed when j is cancelled (outside Shield: the
// close is part of the cancel walk) or terminal. The channel is made on the
// first call.
func (j *Job) Done() <-chan struct{} {
	j.list() // its parent's walk must close it
	s := j.lockSlow()
	defer j.mu.Unlock()
	if s&bitWalked != 0 {
		return closedChan
	}
	x := j.extra()
	if x.done == nil {
		x.done = make(chan struct{})
	}
	return x.done
}

// Err returns nil until Done is closed; then the cancellation error if j
// was cancelled, or an error matching ErrCancelled (and context.Canceled)
// and ErrFinished if it ended without being cancelled. Once non-nil, it returns the same error on every
// call, as context.Context requires: when an explicit Cancel replaces the
// cause of a WithTimeout scope's timeout afterwards, Result and Check
// report the new cause, Err still the timeout.
func (j *Job) Err() error {
	s := j.state.Load()
	if s&bitWalked == 0 && j.parentDown() {
		j.list() // take the parent's cancellation, as Done would show it
		s = j.state.Load()
	}
	switch {
	case s&bitWalked == 0:
		return nil
	case s&bitCancel != 0:
		if j.flags&flagDeadline != 0 {
			return j.deadlineErr()
		}
		return j.cancelErr()
	}
	return errFinished
}

// deadlineErr is Err for a cancelled WithTimeout scope: the only kind of
// job whose cancellation error can change, when an explicit Cancel replaces
// its timeout's (requestCancelLocked). It records the first error it
// returns and returns that from then on. (Every other job's cancellation
// error is final once set.) Two locks, only on this path.
func (j *Job) deadlineErr() error {
	err := j.cancelErr()
	j.mu.Lock()
	if j.x.err == nil {
		j.x.err = err
	} else {
		err = j.x.err
	}
	j.mu.Unlock()
	return err
}

// Value looks key up in the context given to Runtime.Run.
func (j *Job) Value(key any) any {
	r := j
	for r.parent != nil {
		r = r.parent
	}
	if r.x == nil || r.x.ctx == nil {
		return nil
	}
	return r.x.ctx.Value(key)
}

// Parent returns j's parent (for a detached child, the job that launched
// it), or nil for a root.
func (j *Job) Parent() *Job { return j.parent }

// Name returns the name given with Named, or "".
func (j *Job) Name() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.x == nil {
		return ""
	}
	return j.x.name
}

// String describes j for debugging: its name (or address) and state.
func (j *Job) String() string {
	if n := j.Name(); n != "" {
		return fmt.Sprintf("job %q (%v)", n, j.State())
	}
	return fmt.Sprintf("job %p (%v)", j, j.State())
}
