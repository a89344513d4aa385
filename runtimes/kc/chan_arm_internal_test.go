package kc

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// spinExecutor runs every task on a goroutine of its own; its Park calls
// spin, as a backend's spin would run before it blocks, then Wait.
type spinExecutor struct {
	wg   sync.WaitGroup
	spin func(p *Parker)
}

func (e *spinExecutor) Spawn(t *Task) {
	e.wg.Add(1)
	go func() { defer e.wg.Done(); t.Run() }()
}
func (e *spinExecutor) Park(p *Parker) { e.spin(p); p.Wait() }
func (e *spinExecutor) AfterFunc(d time.Duration, f func()) Timer {
	return time.AfterFunc(d, f)
}
func (e *spinExecutor) Close() error { e.wg.Wait(); return nil }

// hooksOf returns the cancel hooks listed on the job of p's channel wait.
func hooksOf(p *Parker) *cancelNode {
	j := (*chanWaiter)(unsafe.Pointer(p)).job
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.hooks
}

// TestChanHookArmedOnlyToBlock: a blocked Recv whose partner answers
// before Parker.Wait (during the executor's spin) never registers its
// cancel hook; one that is cancelled then is woken by Wait's registration
// (the walk, which ran first, found no hook), and returns the
// cancellation error, not a value.
func TestChanHookArmedOnlyToBlock(t *testing.T) {
	ch, _ := NewChan[int](0)
	var hooked []bool
	var job *Job
	cancelNext := false
	ex := &spinExecutor{}
	ex.spin = func(p *Parker) {
		if !p.arm {
			return // not a channel wait of a job
		}
		hooked = append(hooked, hooksOf(p) != nil)
		if cancelNext {
			job.Cancel(errors.New("during the spin"))
			return
		}
		if err := ch.TrySend(7); err != nil {
			t.Errorf("TrySend to the blocked Recv: %v", err)
		}
		hooked = append(hooked, hooksOf(p) != nil)
	}
	rt := New(ex)
	err := rt.Run(context.Background(), func(j *Job) error {
		job = j
		if v, err := ch.Recv(j); v != 7 || err != nil {
			t.Errorf("Recv answered during the spin = %d, %v; want 7, nil", v, err)
		}
		cancelNext = true
		if _, err := ch.Recv(j); err == nil {
			t.Error("Recv cancelled during the spin returned no error")
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrCancelled) {
		t.Errorf("Run: %v", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, false, false}; len(hooked) != len(want) || hooked[0] || hooked[1] || hooked[2] {
		t.Errorf("cancel hook listed before Wait (per spin) = %v; want %v", hooked, want)
	}
}

// TestChanHookUnlinkedAfterWait: a Send or Recv that blocked long enough
// to list its cancel hook on its job takes the hook off again when a
// partner wakes it. A hook left listed would not show through the API,
// but a job that blocks on channels for its whole life (an actor) would
// keep one per operation until it ends.
func TestChanHookUnlinkedAfterWait(t *testing.T) {
	ch, _ := NewChan[int](0)
	ex := &spinExecutor{}
	var partner func()
	ex.spin = func(p *Parker) {
		if !p.arm {
			return
		}
		// The partner answers only once Wait has listed the hook.
		go func() {
			for hooksOf(p) == nil {
				time.Sleep(10 * time.Microsecond)
			}
			partner()
		}()
	}
	rt := New(ex)
	const rounds = 100
	err := rt.Run(context.Background(), func(j *Job) error {
		partner = func() {
			if err := ch.TrySend(7); err != nil {
				t.Errorf("TrySend to the blocked Recv: %v", err)
			}
		}
		for range rounds {
			if v, err := ch.Recv(j); v != 7 || err != nil {
				t.Fatalf("Recv = %d, %v; want 7, nil", v, err)
			}
		}
		partner = func() {
			if v, err := ch.TryRecv(); v != 8 || err != nil {
				t.Errorf("TryRecv from the blocked Send = %d, %v; want 8, nil", v, err)
			}
		}
		for range rounds {
			if err := ch.Send(j, 8); err != nil {
				t.Fatalf("Send: %v", err)
			}
		}
		if n := countHooks(j); n != 0 {
			t.Errorf("after %d blocked Recvs and %d blocked Sends, all woken by a partner: %d cancel hooks still listed on the job; want 0", rounds, rounds, n)
		}
		return nil
	})
	if err != nil {
		t.Errorf("Run: %v", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
}
