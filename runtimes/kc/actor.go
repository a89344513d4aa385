package kc

import (
	"errors"
	"runtime/debug"
)

// Actor is a job that owns a mailbox and handles its messages one at a
// time, in the order they arrive (spec 03 kc_scope_actor). It is a child of
// the job that made it: the scope waits for it, cancels it, and (unless it is
// a supervisor) fails when the actor fails.
//
// The actor ends Completed once its mailbox is closed and drained, Failed
// when a handler returns an error or panics (a *PanicError; no goroutine
// dies), and Cancelled when its job is cancelled. When it ends, for any
// reason, even cancelled before it started, its mailbox is closed, so
// later sends return ErrClosed instead of waiting forever: a
// *ChanClosedError that wraps the failure when it failed, or the
// cancellation error (and so matches ErrCancelled too) when it was
// cancelled.
type Actor[M any] struct {
	job *Job
	box *Chan[M]
}

// NewActor starts an actor as a child of j, with a mailbox of the given
// capacity (0: each Send waits for the actor to take the message), that
// calls handle for each message. handle receives the actor's own job: its
// cancellation source and the parent of anything it launches.
func NewActor[M any](j *Job, capacity int, handle func(a *Job, m M) error, opts ...JobOption) (*Actor[M], error) {
	if handle == nil {
		return nil, ErrNilBody
	}
	box, err := NewChan[M](capacity)
	if err != nil {
		return nil, err
	}
	a := &Actor[M]{box: box}
	a.job, err = j.launchClosing(func(aj *Job) (err error) {
		defer closeAfter(box, &err)
		for { // Recv returns the cancellation at once if aj was cancelled before it started
			m, err := box.Recv(aj)
			if err != nil {
				if errors.Is(err, ErrClosed) {
					return nil // closed by Close and drained
				}
				return err // cancelled
			}
			if err := handle(aj, m); err != nil {
				return err
			}
		}
	}, opts)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Send delivers m to the mailbox, waiting while it is full; cancellable
// through w like Chan.Send. ErrClosed once the actor was closed or ended.
func (a *Actor[M]) Send(w *Job, m M) error { return a.box.Send(w, m) }

// TrySend delivers m if the mailbox has room at once, else ErrWouldBlock.
func (a *Actor[M]) TrySend(m M) error { return a.box.TrySend(m) }

// Close closes the mailbox: the actor handles what is already in it and
// then ends Completed. Closing twice returns ErrClosed.
func (a *Actor[M]) Close() error { return a.box.Close() }

// Job returns the actor's job: Join it to wait for the actor to end.
func (a *Actor[M]) Job() *Job { return a.job }

// Produce starts body as a child of j that sends values on a new channel
// of the given capacity, and returns that channel (spec 03
// kc_scope_produce, Kotlin's produce). When body returns, the channel is
// closed: receivers get the values sent, then ErrClosed, or, if body
// failed, a *ChanClosedError wrapping its failure (the failure also fails
// the producer's job, and so j, as for any child). A producer cancelled
// before body starts does not run body, but closes the channel all the
// same: receivers get a *ChanClosedError wrapping the cancellation error
// (it matches ErrClosed and ErrCancelled), as when a running body returns
// the cancellation.
//
// A consumer that wants no more values closes the channel: the producer's
// next Send returns ErrClosed, and a body that returns that error ends
// Completed, not Failed. A consumer that closes it with CloseWithError(cause)
// gives a reason instead: the next Send returns a *ChanClosedError wrapping
// cause, and a body that returns that error fails with it. Cancelling j
// cancels the producer.
func Produce[T any](j *Job, capacity int, body func(p *Job, out *Chan[T]) error, opts ...JobOption) (*Chan[T], error) {
	if body == nil {
		return nil, ErrNilBody
	}
	out, err := NewChan[T](capacity)
	if err != nil {
		return nil, err
	}
	_, err = j.launchClosing(func(p *Job) (err error) {
		defer closeAfter(out, &err)
		if err = p.Check(); err != nil {
			return err // cancelled before it started: only close out
		}
		err = body(p, out)
		if err != nil && errors.Is(err, ErrClosed) && out.closedErr() == ErrClosed {
			return nil // the consumer closed the channel: it wants no more
		}
		return err
	}, opts)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// launchClosing is Launch for the body of an actor or producer, which
// closes a channel when it ends: it runs even if its job is cancelled
// before it starts (flagRunCancelled), so that the channel is closed
// however the job ends and no one outside waits on it forever.
func (j *Job) launchClosing(body Func, opts []JobOption) (*Job, error) {
	c := j.rt.newJob()
	if err := j.newChild(c, body, flagRunCancelled, opts); err != nil {
		return nil, err
	}
	j.rt.ex.Spawn((*Task)(c))
	return c, nil
}

// closeAfter is deferred by the bodies of actors and producers: it closes c
// with the body's error (*err; nil closes it plainly), or with a
// *PanicError if the body panicked, and then lets the panic go on to the
// core, which fails the job with it.
func closeAfter[T any](c *Chan[T], err *error) {
	if r := recover(); r != nil {
		c.CloseWithError(&PanicError{Value: r, Stack: debug.Stack()})
		panic(r)
	}
	c.CloseWithError(*err)
}
