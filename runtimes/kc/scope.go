package kc

import "time"

func collect(opts []JobOption) (jobFlags, string) {
	var f jobFlags
	var name string
	for _, o := range opts {
		f |= o.flags
		if o.name != "" {
			name = o.name
		}
	}
	return f, name
}

// newChild allocates nothing: it prepares c (allocated by the caller, maybe
// inside a Deferred) with the options' name and attaches it to j.
func (j *Job) newChild(c *Job, body bodyRunner, flags jobFlags, opts []JobOption) error {
	f, name := collect(opts)
	if name != "" {
		c.x = &jobExtra{name: name}
	}
	return j.attach(c, body, flags|f)
}

// Launch starts body as a new child job of j and returns it. The child runs
// concurrently; j does not become terminal before it (unless it is
// Detached). Launch into a cancelled or terminal job returns ErrCancelled and
// runs nothing; into a Closing job, ErrClosed. Cost: one allocation (the job)
// plus the executor's Spawn.
func (j *Job) Launch(body Func, opts ...JobOption) (*Job, error) {
	if body == nil {
		return nil, ErrNilBody
	}
	slowPoint()
	c := j.rt.newJob()
	if err := j.newChild(c, body, 0, opts); err != nil {
		return nil, err
	}
	j.rt.ex.Spawn((*Task)(c))
	return c, nil
}

// Open makes an explicit scope (a Trio nursery): a child job with no body.
// Launch children into it, then Close it, or AwaitAll it (Close, wait,
// result), or let it be closed when j's body returns. Its children's failures
// fail and cancel it like any job, and its own failure fails j. Once
// cancelled (by Cancel, by j's cancellation or by a failing child) it ends
// as soon as its children and leases are done, without Close (spec 04 §2.3).
func (j *Job) Open(opts ...JobOption) (*Job, error) {
	n := new(Job)
	if err := j.newChild(n, nil, flagOpen, opts); err != nil {
		return nil, err
	}
	return n, nil
}

// Close is the nursery close() of spec 04: j stops accepting children
// (Active -> Closing). A nursery made by Open then becomes terminal as soon
// as its children are; its Close plays the part of a body returning, so it
// also closes the nurseries opened in it that are still open, as the end of
// a body does (bodyReturned), and they theirs. A job with a body still
// waits for its body.
func (j *Job) Close() {
	s := j.lockSlow()
	if stateOf(s).Terminal() {
		j.mu.Unlock()
		return
	}
	if j.body != nil {
		if s = j.state.Or(bitClosed); stateOf(s) == Active {
			j.setStateLocked(Closing)
		}
		j.mu.Unlock()
		return
	}
	// The nursery's "body" ends: bitEnded, set under j.mu as the open
	// children are collected, makes a nursery whose attach to j raced
	// with this and is not in the list yet close itself (attach).
	s = j.state.Or(bitClosed | bitEnded)
	if stateOf(s) == Active {
		j.setStateLocked(Closing)
	}
	if s&bitEnded != 0 {
		j.mu.Unlock()
		return // an earlier Close does the rest
	}
	var open []*Job
	if s&bitHasOpen != 0 {
		for c := j.head; c != nil; c = c.next {
			if c.flags&flagOpen != 0 {
				open = append(open, c)
			}
		}
	}
	j.mu.Unlock()
	for _, c := range open {
		c.Close()
	}
	// This Or ends the nursery's "body" (not before its nurseries are
	// closed, as for a body): if nothing holds it, it is ours to finish
	// (see state.go). A cancel walk may have ended it first (and then
	// holds it; cancelWalkLocked).
	if s = j.state.Or(bitBodyDone); s&bitBodyDone == 0 && holds(s) == 0 {
		j.finish(nil)
	}
}

// Scope runs body as a child scope of j on the calling goroutine and waits
// for the scope's children (Kotlin's coroutineScope). A failing child cancels
// the scope and its other children; the first failure is returned to the
// caller rather than failing j directly, so j may handle it.
func (j *Job) Scope(body Func) error { return j.scope(body, 0, 0) }

// SupervisorScope is Scope with supervisor semantics: child failures are
// ignored, and it returns only the failure of body itself.
func (j *Job) SupervisorScope(body Func) error { return j.scope(body, flagSupervisor, 0) }

// WithTimeout is Scope with a deadline d from now. If the deadline passes
// first, the scope is cancelled (cause ErrTimeout), waits for its children,
// and WithTimeout returns a *TimeoutError, which matches ErrTimeout but not
// ErrCancelled (a timeout is a failure for whoever receives it). Failures
// recorded before the timeout win; those after it do not. For d > 0 the
// timeout never keeps the body from running, however late it starts (an
// early timeout reaches it at its first checkpoint); for d <= 0 the body is
// skipped. A finished WithTimeout leaves no timer armed, also when its body
// ends its goroutine with runtime.Goexit.
func (j *Job) WithTimeout(d time.Duration, body Func) error {
	return j.scope(body, flagDeadline, d)
}

func (j *Job) scope(body Func, flags jobFlags, d time.Duration) error {
	if body == nil {
		return ErrNilBody
	}
	s := new(Job)
	var run bodyRunner = Func(body)
	if flags&flagDeadline != 0 {
		s.x = &jobExtra{deadline: time.Now().Add(d)}
		if d > 0 {
			s.x.timed.body = body
			run = &s.x.timed
		}
	}
	if err := j.attach(s, run, flags|flagScope); err != nil {
		return err
	}
	if flags&flagDeadline != 0 && (d < 0 || d == 0 && !j.rt.faults.has(faultWithTimeoutZeroRunsBody)) {
		s.cancel(ErrTimeout, byTimeout) // already past: the body is skipped
	}
	s.claim()
	if flags&flagDeadline != 0 && d > 0 {
		s.runTimed()
	} else {
		s.run(nil)
		if !s.terminal() {
			s.wait(nil, waitTerminal, 0, true)
		}
	}
	if s.State() == Cancelled && s.state.Load()&bitTimedOut != 0 {
		return &TimeoutError{After: d}
	}
	return s.result()
}

// runTimed runs a WithTimeout scope with d > 0 and waits for it, on the
// caller's goroutine, then stops its timer. The stop is deferred so that it
// also runs when the body calls runtime.Goexit, which ends the goroutine
// inside run: an armed timer would keep Runtime.Close waiting until it
// fired. (The scope is then failing and cancelled: its timer has nothing
// left to do.)
func (s *Job) runTimed() {
	defer func() {
		if t := s.x.timed.t; t != nil { // nil if the body was skipped
			t.Stop()
		}
	}()
	s.run(nil)
	if !s.terminal() {
		s.wait(nil, waitTerminal, 0, true)
	}
}

// timedBody is the body of a WithTimeout scope with d > 0: it arms the
// scope's timer, for what is left of the deadline, as the body starts. A
// timer armed before the start could fire first on a slow start (a loaded
// machine), and a job cancelled before its body starts skips the body; so
// the body would sometimes not run at all. Armed here, the timeout never
// skips the body and reaches it at its first checkpoint instead, as the
// block of Kotlin's withTimeout always starts. The scope's goroutine runs
// the body and then reads t, so t needs no synchronisation.
type timedBody struct {
	body Func
	t    Timer
}

func (b *timedBody) runBody(s *Job) error {
	b.t = s.rt.timeoutCancel(time.Until(s.x.deadline), s)
	return b.body(s)
}
