// Package testutil holds what the module's tests share: a watchdog that
// turns a hang into a failure with every goroutine's stack, a check that
// no goroutine started during a test outlives it, a check that a call
// waits for what it must, and golden-file comparison. None measures
// speed.
package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Watchdog runs f and fails t, with every goroutine's stack, if f has not
// returned after d: a hang, never a timing assertion. f is abandoned then.
func Watchdog(t testing.TB, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("hung: no result after %v; goroutines:\n%s", d, stacks())
	}
}

// NoLeak records the number of goroutines now and, when the test ends,
// fails it if more are left after a grace of five seconds (goroutines on
// their way out are still counted for a moment after they are done). The
// test must close every runtime it made.
func NoLeak(t testing.TB) {
	base := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > base {
			t.Errorf("goroutines at the end of the test: got %d; want at most %d, as at its start:\n%s", n, base, stacks())
		}
	})
}

// SpinUntil spins until flag is set, without yielding where another P can
// run the goroutine that sets it, so that the two sides meet as closely as
// the machine allows; with GOMAXPROCS=1 it yields each time round, since
// the setter cannot run while it spins (it would wait for the scheduler's
// preemption, about 10 ms a spin).
func SpinUntil(flag *atomic.Bool) {
	single := runtime.GOMAXPROCS(0) == 1
	for !flag.Load() {
		if single {
			runtime.Gosched()
		}
	}
}

func stacks() []byte {
	buf := make([]byte, 1<<20)
	return buf[:runtime.Stack(buf, true)]
}

// Golden compares got with the golden file at path, or, with update (a
// test's -update flag), rewrites the file with got. A missing file fails
// t with a hint to run with -update.
func Golden(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", filepath.Base(path), got, want)
	}
}

// CloseDuringStart checks that a Close waits for a goroutine start that
// is under way: start runs on a goroutine of its own until it calls the
// hook (which CloseDuringStart installs with setHook, and removes at the
// end), which holds it there; then closeFn must wait for the hook's
// release (BlocksUntil).
func CloseDuringStart(t testing.TB, setHook func(func()), start, closeFn func()) {
	t.Helper()
	paused, release := make(chan struct{}), make(chan struct{})
	setHook(func() { close(paused); <-release })
	defer setHook(nil)
	go start()
	<-paused
	BlocksUntil(t, "Close", closeFn, "a start was under way", func() { close(release) })
}

// BlocksUntil checks that call, run on a goroutine of its own, waits for
// release: it must not return within 50 ms (else t fails with what
// "returned while" during), and must return within 10 s once release has
// run (else t fails at once, with call still running). release runs in
// either case, so that a call that returned early leaves nothing blocked.
func BlocksUntil(t testing.TB, what string, call func(), during string, release func()) {
	t.Helper()
	returned := make(chan struct{})
	go func() { call(); close(returned) }()
	select {
	case <-returned:
		t.Errorf("%s returned while %s", what, during)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return within 10 s once %s had ended", what, during)
	}
}
