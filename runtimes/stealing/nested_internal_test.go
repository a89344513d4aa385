package stealing

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/goruntime"
	"github.com/kcbench/kcbench/internal/kcload"
	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// countResumes sets testHookResume, for the executor a test makes next, to
// count the resumes of loop coroutines by their driver goroutine (direct)
// and by another loop coroutine (nested), and clears it when the test
// ends. Set before the executor starts and cleared after it is closed (the
// caller closes it before returning), so no driver reads the hook as it
// changes.
func countResumes(t *testing.T) (direct, nested *atomic.Int64) {
	t.Helper()
	if !goruntime.GOK {
		t.Skip("no goroutine identities on this architecture: the loop runs without coroutines")
	}
	r := new(kcload.Resumes)
	testHookResume = r.Note
	t.Cleanup(func() { testHookResume = nil })
	return &r.Direct, &r.Nested
}

// runOneWorker runs body on a runtime over a fresh executor with one worker
// and no monitor, under runWatched's watchdog of 30 s (what says what had
// happened by then), and closes both. It fails t if a goroutine is left.
func runOneWorker(t *testing.T, what func() string, body kc.Func) {
	t.Helper()
	testutil.NoLeak(t)
	e, err := New(Workers(1), withoutMonitor())
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(e)
	runWatched(t, e, rt, 30*time.Second, what, body)
	rt.Close()
	e.Close()
}

// A body that Joins a child it launched into a nursery, again and again,
// on the only worker: each Join parks the body, the loop coroutine that
// took over runs the child, and the child's end makes the body ready. That
// loop coroutine, which its driver resumed, resumes the body itself
// (runNested), so the body's next park returns straight to it: after the
// first round no resume goes through the driver. With the driver doing
// every resume, each round takes two of its resumes (the loop coroutine at
// the park, the body at the wake).
func TestJoinerResumedNested(t *testing.T) {
	direct, nested := countResumes(t)
	const rounds = 2000
	var done atomic.Int64
	runOneWorker(t, func() string {
		return fmt.Sprintf("%d of %d Joins done in 30 s", done.Load(), rounds)
	}, kcload.JoinRounds(rounds, &done))
	if d, n := direct.Load(), nested.Load(); n < rounds || d > rounds/10 {
		t.Errorf("%d rounds of Launch and Join: %d resumes by the driver, %d nested; want at most %d and at least %d", rounds, d, n, rounds/10, rounds)
	}
}

// A mass wake, round after round: n children of one parent Await a
// deferred that completes after they have parked, so its end makes them
// ready at once, as a chain. The loop coroutine that takes the chain
// resumes the children one after another, each nested under it; a nested
// child whose task has ended hands the next one back to it rather than
// resuming it itself (runNested panics if one does), so the chain never
// stacks loop coroutines under one another.
func TestReadyChainResumedNested(t *testing.T) {
	_, nested := countResumes(t)
	const rounds, n = 50, 64
	var woken atomic.Int64
	runOneWorker(t, func() string {
		return fmt.Sprintf("%d of %d awaits done in 30 s", woken.Load(), rounds*n)
	}, kcload.WakeRounds(rounds, n, &woken))
	if got := nested.Load(); got < rounds*n/2 {
		t.Errorf("%d rounds of %d awaiters woken together: %d nested resumes; want at least %d", rounds, n, got, rounds*n/2)
	}
}
