package stealing

import (
	"context"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// holdExecutor is a kc.Executor that runs nothing: it hands each spawned
// task to the test, which gives it to the executor under test at a moment
// of its choosing. Park is the Parker's own semaphore.
type holdExecutor struct{ spawned chan *kc.Task }

func (h holdExecutor) Spawn(t *kc.Task)                           { h.spawned <- t }
func (holdExecutor) Park(p *kc.Parker)                            { p.Wait() }
func (holdExecutor) AfterFunc(d time.Duration, f func()) kc.Timer { return time.AfterFunc(d, f) }
func (holdExecutor) Close() error                                 { return nil }

// The interleaving of the lost wake-up TestWakeWithoutBackstop found, made
// deterministic with testHookWake (see wake). Two worker slots, one held by
// a worker stuck in a body that never looks at the queues, no monitor
// rescue (MaxExtra(0)). Spawn publishes a task and finds a slot free; in
// the window before its add, a worker going idle takes the free slot back
// (it saw the task); in the window before Spawn's undo, that worker ends
// another task and retires, since running (3, Spawn's provisional slot
// included) is over the target. Spawn must still get the task run.
func TestWakeOvershootRetire(t *testing.T) {
	testutil.NoLeak(t)
	e, err := New(Workers(2), MaxExtra(0))
	if err != nil {
		t.Fatal(err)
	}
	hold := holdExecutor{spawned: make(chan *kc.Task, 1)}
	rt := kc.New(hold)
	ran := make(chan struct{})
	runErr := make(chan error, 1)
	go func() { runErr <- rt.Run(context.Background(), func(*kc.Job) error { close(ran); return nil }) }()
	task := <-hold.spawned

	e.sched.running.Add(1) // the stuck worker's slot
	var adds, undos int
	testHookWake = func(p hookPoint) {
		switch {
		case p == hookBeforeAdd && adds == 0:
			adds++
			e.sched.running.Add(1) // a worker going idle saw the task and takes its slot back
		case p == hookBeforeUndo && undos == 0:
			undos++
			if !e.retire() { // it ran another task and finds running over the target
				t.Errorf("retire with running at %d: false; want true", e.sched.running.Load()+1)
			}
		}
	}
	e.Spawn(task) // from outside any worker, like the stuck worker's Launch
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Errorf("the task did not run in 5s: a lost wake-up; %+v, hook calls: %d before add, %d before undo", Snapshot(e), adds, undos)
		testHookWake = nil
		e.wake() // a slot is free: this one is not lost, and the test can end
		<-ran
	}
	e.sched.running.Add(-1)
	if err := <-runErr; err != nil {
		t.Error(err)
	}
	rt.Close()
	e.Close()
	testHookWake = nil
	if adds != 1 || undos != 1 {
		t.Errorf("hook calls: %d before add, %d before undo; want 1 and 1 (the interleaving did not happen)", adds, undos)
	}
}
