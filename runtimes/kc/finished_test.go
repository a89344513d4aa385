package kc_test

import (
	"context"
	"testing"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestTaskFinishedIsAPureLoad guards Task.Finished, which executors call in
// pinned sections: for an unstarted child whose parent was cancelled (a
// queue entry the stealing backend's Spawn inspects), it reports false and,
// unlike Job().State(), records nothing, so it cannot take locks; State then
// records the parent's cancellation (one more CancellationsRequested).
func TestTaskFinishedIsAPureLoad(t *testing.T) {
	ex := &gateExecutor{}
	rt := kc.New(ex)
	defer rt.Close()
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		n, err := j.Open()
		if err != nil {
			return err
		}
		ex.pause()
		c, err := n.Launch(func(*kc.Job) error { return nil })
		if err != nil {
			return err
		}
		n.Cancel(nil)
		before := rt.Stats().CancellationsRequested
		task := (*kc.Task)(c)
		if task.Finished() {
			t.Error("Finished() = true for an unstarted child; want false")
		}
		if got := rt.Stats().CancellationsRequested; got != before {
			t.Errorf("Finished() recorded a cancellation: CancellationsRequested %d -> %d", before, got)
		}
		if st := c.State(); st != kc.Cancelling {
			t.Errorf("State() = %v; want Cancelling", st)
		}
		if got := rt.Stats().CancellationsRequested; got != before+1 {
			t.Errorf("after State(): CancellationsRequested = %d; want %d", got, before+1)
		}
		ex.resume()
		if err := c.Join(nil); err == nil || !task.Finished() {
			t.Errorf("child: Join = %v, Finished = %v; want a cancellation and true", err, task.Finished())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
