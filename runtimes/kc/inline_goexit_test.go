package kc_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestInlineAwaitGoexitFailsWaiter pins down what a runtime.Goexit does in
// the body of a child that its parent's Await runs inline (the child had
// not started: the executor holds it back here). The Goexit ends the
// awaiting goroutine, so Await does not return, and the awaiting job fails
// with an error matching ErrGoexit, also when it is a supervisor (which
// ignores the child's own failure) and whichever goroutine awaited:
//   - "body": the supervisor scope's body awaits; the scope and the root
//     body that called it unwind with ErrGoexit, and Run returns it;
//   - "goroutine": a goroutine that the supervisor's body started awaits;
//     only that goroutine ends, and the supervisor, failed and cancelled,
//     sees the cancellation in its body and ends Failed, which fails the
//     root, whose body goes on.
func TestInlineAwaitGoexitFailsWaiter(t *testing.T) {
	testutil.NoLeak(t)
	for _, where := range []string{"body", "goroutine"} {
		t.Run(where, func(t *testing.T) {
			ex := &gateExecutor{}
			rt := kc.New(ex)
			defer rt.Close()
			var sup, child *kc.Job
			var awaited, afterScope, rootWentOn bool
			// await runs the child that calls Goexit inline, on the calling
			// goroutine, and reports whether Await returned.
			await := func(s *kc.Job) {
				ex.pause() // the child certainly does not start before the Await
				d, err := kc.Async(s, func(*kc.Job) (int, error) { runtime.Goexit(); return 0, nil })
				if err != nil {
					t.Error(err)
					return
				}
				child = d.Job()
				defer ex.resume() // runs as the Goexit unwinds: the queue entry is stale
				d.Await(s)
				awaited = true
			}
			var err error
			testutil.Watchdog(t, 10*time.Second, func() {
				err = rt.Run(context.Background(), func(j *kc.Job) error {
					switch where {
					case "body":
						j.SupervisorScope(func(s *kc.Job) error {
							sup = s
							await(s)
							return nil
						})
						afterScope = true
						return nil
					default:
						s, err := j.Launch(func(s *kc.Job) error {
							done := make(chan struct{})
							go func() { defer close(done); await(s) }()
							<-done
							<-s.Done() // only the failure recorded on s ends this
							return s.Err()
						}, kc.Supervisor())
						sup = s
						if err != nil {
							return err
						}
						s.Join(nil)
						rootWentOn = true
						return nil
					}
				})
			})
			if awaited || afterScope {
				t.Errorf("Await returned: %v, SupervisorScope returned: %v; want neither (the Goexit ends their goroutine)", awaited, afterScope)
			}
			if st, r := child.State(), child.Result(); st != kc.Failed || !errors.Is(r, kc.ErrGoexit) {
				t.Errorf("child: %v, %v; want Failed with ErrGoexit", st, r)
			}
			if st, r := sup.State(), sup.Result(); st != kc.Failed || !errors.Is(r, kc.ErrGoexit) {
				t.Errorf("the awaiting supervisor: %v, %v; want Failed with ErrGoexit", st, r)
			}
			if errs := sup.Errors(); len(errs) != 1 {
				t.Errorf("the awaiting supervisor's Errors() = %v; want the one Goexit", errs)
			}
			if !errors.Is(err, kc.ErrGoexit) {
				t.Errorf("Run = %v; want ErrGoexit", err)
			}
			if want := where == "goroutine"; rootWentOn != want {
				t.Errorf("the root body went on after the supervisor ended: %v; want %v", rootWentOn, want)
			}
			rt.Close()
			checkTotals(t, rt, false)
		})
	}
}
