package kc_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// This file holds what the tests of lazy cancellation, hold counting and
// kc.Worker batching share: an executor whose spawns can be held back, and
// the Stats checks every scenario ends with.

// gateExecutor runs every task on a goroutine of its own, like the goroutine
// backend, except that while it is paused spawned tasks wait in a queue: a
// test can make a child that certainly has not started yet.
type gateExecutor struct {
	mu     sync.Mutex
	paused bool
	held   []*kc.Task
	wg     sync.WaitGroup
}

func (e *gateExecutor) Spawn(t *kc.Task) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.paused {
		e.held = append(e.held, t)
		return
	}
	e.start(t)
}

func (e *gateExecutor) start(t *kc.Task) {
	e.wg.Add(1)
	go func() { defer e.wg.Done(); t.Run() }()
}

// pause holds back the tasks spawned from now on.
func (e *gateExecutor) pause() { e.mu.Lock(); e.paused = true; e.mu.Unlock() }

// resume starts the held tasks and stops holding.
func (e *gateExecutor) resume() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.paused = false
	for _, t := range e.held {
		e.start(t)
	}
	e.held = nil
}

func (e *gateExecutor) Park(p *kc.Parker) { p.Wait() }
func (e *gateExecutor) AfterFunc(d time.Duration, f func()) kc.Timer {
	return time.AfterFunc(d, f)
}
func (e *gateExecutor) Close() error { e.resume(); e.wg.Wait(); return nil }

// checkTotals checks what must hold once every job of rt is terminal: each
// job ended exactly once (JobsCreated is the sum of the terminal counters;
// a job finished twice or never breaks it), every waiter was woken, and,
// when the scenario records no failure (noFailures), every job counted in
// CancellationsRequested ended Cancelled and every Cancelled job was
// counted there once (a lazily cancelled child included).
func checkTotals(t *testing.T, rt *kc.Runtime, noFailures bool) kc.Stats {
	t.Helper()
	s := rt.Stats()
	if ended := s.JobsCompleted + s.JobsFailed + s.JobsCancelled; ended != s.JobsCreated {
		t.Errorf("JobsCreated %d != Completed %d + Failed %d + Cancelled %d = %d",
			s.JobsCreated, s.JobsCompleted, s.JobsFailed, s.JobsCancelled, ended)
	}
	if s.WaitersRegistered != s.WaitersWoken {
		t.Errorf("WaitersRegistered %d != WaitersWoken %d", s.WaitersRegistered, s.WaitersWoken)
	}
	if noFailures && s.CancellationsRequested != s.JobsCancelled {
		t.Errorf("CancellationsRequested %d != JobsCancelled %d (no job failed, so every request must end one job Cancelled)",
			s.CancellationsRequested, s.JobsCancelled)
	}
	return s
}

// wantCancelledBy checks that job c ended Cancelled with a Result that
// matches ErrCancelled and wraps cause.
func wantCancelledBy(t *testing.T, what string, c *kc.Job, cause error) {
	t.Helper()
	if st := c.State(); st != kc.Cancelled {
		t.Errorf("%s: State = %v; want Cancelled", what, st)
	}
	if err := c.Result(); !errors.Is(err, kc.ErrCancelled) || !errors.Is(err, cause) {
		t.Errorf("%s: Result = %v; want ErrCancelled wrapping %v", what, err, cause)
	}
}

// isClosed reports whether ch is closed, without waiting.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// runIn runs body as a root of rt on a goroutine of its own, so that the
// test goroutine stays free to cancel or inspect jobs meanwhile. The channel
// receives Run's result.
func runIn(rt *kc.Runtime, body kc.Func) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- rt.Run(context.Background(), body) }()
	return errc
}
