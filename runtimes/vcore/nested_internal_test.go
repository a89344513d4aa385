package vcore

import (
	"sync/atomic"
	"testing"

	"github.com/kcbench/kcbench/internal/kcload"
)

// countResumes sets testHookResume, for the executor a test makes next, to
// count the resumes of contexts by their driver goroutine (direct) and by
// another context (nested), and clears it when the test ends: set before
// the executor starts, cleared after runOnContexts has closed it, as
// testhooks.go asks.
func countResumes(t *testing.T) (direct, nested *atomic.Int64) {
	t.Helper()
	r := new(kcload.Resumes)
	testHookResume = r.Note
	t.Cleanup(func() { testHookResume = nil })
	return &r.Direct, &r.Nested
}

// A body that Joins a child it launched into a nursery, again and again,
// on one core: each Join parks the body's context, a fresh owner runs the
// child, and the child's end makes the body ready, which that owner hands
// its core to. The owner's context, resumed by its driver, runs the body
// itself (driveNested), and when the body parks again it is the core's
// fresh owner once more: after the first round no context is resumed by
// the driver. With the driver doing every resume, each round takes two of
// its resumes (the fresh owner at the park, the body at the wake).
func TestJoinerResumedNested(t *testing.T) {
	direct, nested := countResumes(t)
	const rounds = 2000
	var done atomic.Int64
	runOnContexts(t, kcload.JoinRounds(rounds, &done), Workers(1), noRetake)
	if d, n := direct.Load(), nested.Load(); n < rounds*9/10 || d > rounds/10 {
		t.Errorf("%d rounds of Launch and Join: %d resumes by the driver, %d nested; want at most %d and at least %d", rounds, d, n, rounds/10, rounds*9/10)
	}
}

// A mass wake, round after round, on one core: n children of one parent
// Await a deferred that completes after they have parked, so its end puts
// them all on the core's ready queue. The owner that takes the first hands
// it the core and runs it nested; its stint, once the child's task has
// ended, hands the core to the next, which goes back to that owner to run
// (a nested context never runs one itself), so the chain never stacks
// contexts under one another.
func TestReadyChainResumedNested(t *testing.T) {
	_, nested := countResumes(t)
	const rounds, n = 50, 64
	var woken atomic.Int64
	runOnContexts(t, kcload.WakeRounds(rounds, n, &woken), Workers(1), noRetake)
	if got := nested.Load(); got < rounds*n/2 {
		t.Errorf("%d rounds of %d awaiters woken together: %d nested resumes; want at least %d", rounds, n, got, rounds*n/2)
	}
}
