package conformance

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// Errors the cases' bodies fail with, and causes they cancel with.
var (
	errBoom   = errors.New("conformance: boom")
	errBoom2  = errors.New("conformance: second boom")
	errCause  = errors.New("conformance: cause")
	errCause2 = errors.New("conformance: second cause")
)

// ctx is the context cases give Run unless they test contexts.
var ctx = context.Background()

// patience bounds the polling waits of a case (waitUntil). It is shorter than
// DefaultWatchdog, so a runtime that never gets there fails with a message
// saying what it was waiting for rather than as hung.
const patience = 10 * time.Second

// probe collects the failed checks of one case; the case's error joins them
// with "; ". Its methods are safe for concurrent use (job bodies check too),
// and each reports whether its check passed, so a case can stop early.
type probe struct {
	mu   sync.Mutex
	msgs []string
}

// mk makes a Case whose body checks with a probe.
func mk(name, spec string, f func(rt *kc.Runtime, p *probe)) Case {
	return Case{Name: name, Spec: spec, Run: func(rt *kc.Runtime) error {
		p := new(probe)
		f(rt, p)
		return p.err()
	}}
}

func (p *probe) err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(p.msgs, "; "))
}

// failf records a failed check ("what: got X; want Y") and returns false.
func (p *probe) failf(format string, args ...any) bool {
	p.mu.Lock()
	p.msgs = append(p.msgs, fmt.Sprintf(format, args...))
	p.mu.Unlock()
	return false
}

func (p *probe) check(ok bool, format string, args ...any) bool {
	if !ok {
		return p.failf(format, args...)
	}
	return true
}

// job checks that a Launch-like call succeeded.
func (p *probe) job(what string, j *kc.Job, err error) bool {
	if err != nil || j == nil {
		return p.failf("%s: got (%v, error %v); want a job and no error", what, j, err)
	}
	return true
}

// stillWorks checks that the runtime still runs jobs after what (a panic,
// a Goexit): a child of s launched and joined.
func (p *probe) stillWorks(s *kc.Job, what string) {
	c, err := s.Launch(nop)
	if p.job("Launch after "+what, c, err) {
		p.noErr("Join", c.Join(s))
	}
}

// state checks a job's state and, for a terminal one, IsCancelled (true
// unless Completed), a closed Done and an Err matching context.Canceled;
// a nil job fails.
func (p *probe) state(what string, j *kc.Job, want kc.State) bool {
	if j == nil {
		return p.failf("%s: got no job; want one in state %v", what, want)
	}
	if got := j.State(); got != want {
		return p.failf("%s: got state %v; want %v", what, got, want)
	}
	if want.Terminal() {
		if got := j.IsCancelled(); got != (want != kc.Completed) {
			return p.failf("%s: %v, got IsCancelled %v; want %v", what, want, got, !got)
		}
		if !closed(j.Done()) {
			return p.failf("%s: %v, got Done open; want it closed", what, want)
		}
		if err := j.Err(); !errors.Is(err, context.Canceled) {
			return p.failf("%s: %v, got Err %v; want an error matching context.Canceled", what, want, err)
		}
	}
	return true
}

// allIn checks that every job of jobs (nil entries aside) is in state want,
// reporting how many are not.
func (p *probe) allIn(what string, jobs []*kc.Job, want kc.State) bool {
	bad := 0
	for _, c := range jobs {
		if c != nil && c.State() != want {
			bad++
		}
	}
	return eq(p, what+" not "+want.String(), bad, 0)
}

// terminal checks that a job is terminal.
func (p *probe) terminal(what string, j *kc.Job) bool {
	if j == nil {
		return p.failf("%s: got no job; want a terminal one", what)
	}
	if got := j.State(); !got.Terminal() {
		return p.failf("%s: got state %v; want a terminal state", what, got)
	}
	return true
}

func (p *probe) noErr(what string, err error) bool {
	if err != nil {
		return p.failf("%s: got error %q; want nil", what, err)
	}
	return true
}

// is checks that err matches every target.
func (p *probe) is(what string, err error, targets ...error) bool {
	for _, t := range targets {
		if !errors.Is(err, t) {
			if err == nil {
				return p.failf("%s: got no error; want one matching %q", what, t)
			}
			return p.failf("%s: got error %q; want one matching %q", what, err, t)
		}
	}
	return true
}

// isNot checks that err matches none of targets.
func (p *probe) isNot(what string, err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return p.failf("%s: got error %q, which matches %q; want one that does not", what, err, t)
		}
	}
	return true
}

// eq checks got == want.
func eq[T comparable](p *probe, what string, got, want T) bool {
	if got != want {
		return p.failf("%s: got %v; want %v", what, got, want)
	}
	return true
}

// panicErr checks that err is a *kc.PanicError with the given value and a stack.
func (p *probe) panicErr(what string, err error, value any) bool {
	var pe *kc.PanicError
	if !errors.As(err, &pe) {
		return p.failf("%s: got error %v; want a *kc.PanicError", what, err)
	}
	if pe.Value != value {
		return p.failf("%s: got panic value %v; want %v", what, pe.Value, value)
	}
	return p.check(len(pe.Stack) > 0, "%s: got a PanicError with an empty Stack; want the panicking stack", what)
}

// waitUntil polls cond until it holds; it fails (what: ...) after patience.
// Cases use it only to wait for a condition the runtime must reach (a waiter
// registered, a body returned), never as a sleep.
func (p *probe) waitUntil(what string, cond func() bool) bool {
	deadline := time.Now().Add(patience)
	for i := 0; !cond(); i++ {
		if time.Now().After(deadline) {
			return p.failf("%s: got nothing after %v; want it to happen", what, patience)
		}
		if i < 100 {
			runtime.Gosched()
		} else {
			time.Sleep(50 * time.Microsecond)
		}
	}
	return true
}

// awaitRunWaiter is called at the start of the first root body of a fresh
// runtime, by cases that count waiters: Run waits for its root as a
// registered waiter, at a moment of its own; waiting here until that one
// registration is visible makes the waiter deltas measured later in the
// body exact.
func (p *probe) awaitRunWaiter(rt *kc.Runtime) bool {
	return p.waitUntil("Run's own wait for the root to register", func() bool {
		return rt.Stats().WaitersRegistered >= 1
	})
}

// closed reports whether ch is closed, without blocking.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// statsDelta is after - before, field by field.
func statsDelta(before, after kc.Stats) kc.Stats {
	return kc.Stats{
		JobsCreated:            after.JobsCreated - before.JobsCreated,
		CancellationsRequested: after.CancellationsRequested - before.CancellationsRequested,
		JobsFailed:             after.JobsFailed - before.JobsFailed,
		JobsCompleted:          after.JobsCompleted - before.JobsCompleted,
		JobsCancelled:          after.JobsCancelled - before.JobsCancelled,
		WaitersRegistered:      after.WaitersRegistered - before.WaitersRegistered,
		WaitersWoken:           after.WaitersWoken - before.WaitersWoken,
	}
}

// stats checks a Stats delta field by field; a negative want means "any".
func (p *probe) stats(what string, got kc.Stats, created, cancelReq, failed, completed, cancelled int) bool {
	ok := true
	for _, f := range []struct {
		name string
		got  uint64
		want int
	}{
		{"JobsCreated", got.JobsCreated, created},
		{"CancellationsRequested", got.CancellationsRequested, cancelReq},
		{"JobsFailed", got.JobsFailed, failed},
		{"JobsCompleted", got.JobsCompleted, completed},
		{"JobsCancelled", got.JobsCancelled, cancelled},
	} {
		if f.want >= 0 && f.got != uint64(f.want) {
			ok = p.failf("%s: got %s delta %d; want %d", what, f.name, f.got, f.want)
		}
	}
	return ok
}

// sleeper is a body that sleeps until it is cancelled.
func sleeper(j *kc.Job) error { return j.Sleep(time.Hour) }

// failer is a body that fails with errBoom.
func failer(*kc.Job) error { return errBoom }

// nop is a body that completes.
func nop(*kc.Job) error { return nil }

// launchTooLate reports whether err is a Launch into s refused because s was
// already cancelled: on a slow start (a loaded machine, the race detector)
// a short WithTimeout can fire before its body launches. The timeout cases
// then try a longer one.
func launchTooLate(s *kc.Job, err error) bool {
	return errors.Is(err, kc.ErrCancelled) && s.IsCancelled()
}

// stallBound is how long a case lets a call that must return at once (or
// as soon as the runtime has done what it was asked) take before it gives
// up on it: far beyond what a working runtime needs on a loaded machine,
// and short of the watchdogs, so that a runtime that hangs there fails with
// a message naming the call instead of as hung.
const stallBound = 3 * time.Second

// deadman arms a watchdog for a call that may hang: unless stop is called
// within stallBound, it records "what: got no return after 3s; want ..."
// and calls unblock (typically the cancellation of the waiting job), so
// that the hung call returns and the case can go on to report it.
func (p *probe) deadman(what string, unblock func()) (stop func()) {
	t := time.AfterFunc(stallBound, func() {
		p.failf("%s: got no return after %v; want it to return", what, stallBound)
		unblock()
	})
	return func() { t.Stop() }
}
