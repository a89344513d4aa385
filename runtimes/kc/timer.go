package kc

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// ErrBrokenExecutor is matched by the error Runtime.Close returns when the
// executor broke the Executor contract in a way the core could see but not
// let pass silently: a timer's callback that ran twice, or a Timer.Stop
// that reported true after its callback had run. The core ignores the
// second event, so nothing else goes wrong; Close names it.
var ErrBrokenExecutor = errors.New("kc: the executor broke its contract")

// timerState is the life of one armed timer (runtimeTimer), as the core
// counts it in Runtime.timers.
type timerState uint32

const (
	// timerArmed: counted; the call or a Stop that prevents it may come.
	// Next: timerCalled or timerStopped.
	timerArmed timerState = iota
	// timerCalled: the callback ran (or runs); uncounted. Terminal.
	timerCalled
	// timerStopped: Stop prevented the call; uncounted. Terminal.
	timerStopped
)

// runtimeTimer is a timer of the executor that Runtime.Close waits for:
// armed, it counts once in rt.timers; the first of its call and a Stop
// that prevented the call settles it (one CAS on state: whoever wins
// uncounts it, so the count is dropped exactly once). A second settling
// event can only come from an executor that breaks the Timer contract: it
// is recorded (rt.broken) and does nothing else.
type runtimeTimer struct {
	rt    *Runtime
	p     *Parker       // when it fires: woken with wakeTimeout (a wait's timeout), or
	j     *Job          // cancelled with ErrTimeout (a WithTimeout scope's deadline)
	state atomic.Uint32 // a timerState
	t     Timer         // the executor's; written by arm, read by Stop, both on the arming goroutine
}

// timeoutWake arms a timer that wakes p with wakeTimeout after d.
func (rt *Runtime) timeoutWake(d time.Duration, p *Parker) Timer {
	t := &runtimeTimer{p: p}
	rt.arm(d, t)
	return t
}

// timeoutCancel arms a timer that cancels j with ErrTimeout after d.
func (rt *Runtime) timeoutCancel(d time.Duration, j *Job) Timer {
	t := &runtimeTimer{j: j}
	rt.arm(d, t)
	return t
}

// arm arms t (its p or j set, nothing else) to fire after d. The method
// value t.fire is the one allocation besides t itself.
func (rt *Runtime) arm(d time.Duration, t *runtimeTimer) {
	t.rt = rt
	rt.timers.Add(1)
	t.t = rt.ex.AfterFunc(d, t.fire)
}

// sleepWait is Sleep's wait node and its timer in one allocation: the
// timer's Stop, after the wake, touches memory the wake has just touched.
type sleepWait struct {
	w waiter
	t runtimeTimer
}

// fire is the executor's call of the timer.
func (t *runtimeTimer) fire() {
	if !t.state.CompareAndSwap(uint32(timerArmed), uint32(timerCalled)) {
		t.rt.brokeContract("a timer's callback ran twice, or after Stop reported that it prevented it")
		return
	}
	if t.p != nil {
		t.p.wake(wakeTimeout)
	} else {
		t.j.cancel(ErrTimeout, byTimeout) // the walk runs no user code here (OnCancel callbacks go to a task)
	}
	t.rt.timers.Done()
}

// Stop stops the executor's timer and reports whether that prevented the
// call.
func (t *runtimeTimer) Stop() bool {
	if !t.t.Stop() {
		return false
	}
	if !t.state.CompareAndSwap(uint32(timerArmed), uint32(timerStopped)) {
		t.rt.brokeContract("a Timer's Stop reported true after its callback ran")
		return false
	}
	t.rt.timers.Done()
	return true
}

// brokeContract records the first contract violation of the executor that
// the core has seen, for Close to return.
func (rt *Runtime) brokeContract(what string) {
	err := fmt.Errorf("%w: %s", ErrBrokenExecutor, what)
	rt.broken.CompareAndSwap(nil, &err)
}
