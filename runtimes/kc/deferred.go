package kc

// Deferred is the handle of an Async job: a job whose body produces a value.
// Its job is allocated inside it, so Async costs one allocation.
type Deferred[T any] struct {
	job  Job
	body func(j *Job) (T, error) // immutable
	val  T                       // written by the body's goroutine before the job is terminal
}

func (d *Deferred[T]) runBody(j *Job) error {
	v, err := d.body(j)
	if err == nil {
		d.val = v
	}
	return err
}

// Async starts body as a new child job of j, like Launch, and returns a
// handle to await its value. Like any child, a failing deferred fails j
// (Kotlin's rule) whether or not anyone awaits it.
func Async[T any](j *Job, body func(j *Job) (T, error), opts ...JobOption) (*Deferred[T], error) {
	if body == nil {
		return nil, ErrNilBody
	}
	slowPoint()
	d := &Deferred[T]{body: body}
	if err := j.newChild(&d.job, d, 0, opts); err != nil {
		return nil, err
	}
	j.rt.ex.Spawn((*Task)(&d.job))
	return d, nil
}

// Await returns the deferred's value and error once its job is terminal: the
// value and nil if Completed, the zero value and the job's Result otherwise.
// A finished deferred answers at once, even to a cancelled waiter. A pending
// one is waited for, cancellably through w, the awaiting job (nil from a
// plain goroutine): if w is cancelled first, Await returns w's cancellation
// error and the deferred goes on. A deferred that is terminal when the wait
// ends gives its own outcome even if w was cancelled meanwhile, so a
// waiter cancelled by the failure of the deferred it awaits (its parent or
// an ancestor) always gets that failure, whether the deferred failed before
// the await began or while it was pending. Awaiting from the deferred's own job, or
// from an attached descendant of it, returns ErrWaitCycle at once. A
// deferred of w's whose body has not started is run on the calling
// goroutine instead of waited for; should that body call runtime.Goexit,
// the Goexit ends the calling goroutine and Await does not return (see
// ErrGoexit). Cost when finished: one atomic load.
func (d *Deferred[T]) Await(w *Job) (T, error) {
	slowPoint()
	if d.job.state.Load()&stateMask == uint64(Completed) {
		return d.val, nil
	}
	var zero T
	if !d.job.terminal() {
		if err := d.job.join(w); err != nil {
			return zero, err
		}
	}
	// Read the state again: the job may have completed since the first
	// load (on another goroutine), and a Completed job's Result is nil.
	if d.job.State() == Completed {
		return d.val, nil
	}
	return zero, d.job.result()
}

// State returns the state of the deferred's job.
func (d *Deferred[T]) State() State { return d.job.State() }

// Job returns the deferred's job.
func (d *Deferred[T]) Job() *Job { return &d.job }
