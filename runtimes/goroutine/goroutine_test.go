package goroutine_test

import (
	"context"
	"testing"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestCloseWaitsForRunningTask: the executor's Close returns only once
// every spawned task has returned from Run (kc.Executor), so it does not
// return while a body is still running. An executor that counts a task
// done as it starts it, or whose Close does not wait at all, returns at
// once. The executor's Close is called directly here, ahead of the
// runtime's (which calls it only once every job is terminal, when the
// difference is only the last instructions of each task).
func TestCloseWaitsForRunningTask(t *testing.T) {
	ex := goroutine.New()
	rt := kc.New(ex)
	started, gate := make(chan struct{}), make(chan struct{})
	ran := make(chan error, 1)
	go func() {
		ran <- rt.Run(context.Background(), func(*kc.Job) error { close(started); <-gate; return nil })
	}()
	<-started
	testutil.BlocksUntil(t, "Executor.Close", func() { ex.Close() }, "a task was running", func() { close(gate) })
	if err := <-ran; err != nil {
		t.Errorf("Run: %v", err)
	}
	if err := rt.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
