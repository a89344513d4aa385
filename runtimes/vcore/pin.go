package vcore

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
)

// ErrPinningUnsupported is matched (errors.Is) by New's *PinError when
// Pinning(true) is asked for on an OS where vcore cannot set a thread's CPU
// affinity (every OS but Linux). Without pinning, vcore runs on every OS.
var ErrPinningUnsupported = errors.New("CPU pinning is not supported on " + runtime.GOOS)

// PinError is New's error when CPU pinning was asked for and the affinity
// syscalls are refused (a sandbox, a cgroup without the CPU) or the OS has
// none (ErrPinningUnsupported). It unwraps to the syscall's error.
type PinError struct {
	Op  string // "sched_getaffinity", "sched_setaffinity", or "pin" when unsupported
	CPU int    // the CPU New tried to pin to, or -1
	Err error
}

func (e *PinError) Error() string {
	if e.CPU < 0 {
		return fmt.Sprintf("vcore: pinning: %s: %v", e.Op, e.Err)
	}
	return fmt.Sprintf("vcore: pinning to CPU %d: %s: %v", e.CPU, e.Op, e.Err)
}

func (e *PinError) Unwrap() error { return e.Err }

// pinner pins owner threads to CPUs. The zero pinner (pinning off) does
// nothing and costs a branch. With pinning on, pin and unpin are one
// sched_setaffinity syscall each (about 1 µs). The syscalls live in
// pin_linux.go; on other OSes setup fails with ErrPinningUnsupported, so
// on stays false and pin and unpin never reach them.
type pinner struct {
	on   bool    // immutable after setup
	orig cpuMask // the process's mask at New; restored by unpin. Immutable.
	cpus []int   // CPUs in orig, ascending; immutable
	errs atomic.Uint64
}

// setup records the affinity mask and proves the syscalls work by pinning
// and restoring a thread, so that a refusal is New's error rather than a
// worker's surprise. It runs on a goroutine of its own, locked: if the
// restore fails, that goroutine exits still locked and the Go runtime
// destroys the pinned thread instead of reusing it.
func (p *pinner) setup() error {
	if !pinSupported {
		return &PinError{Op: "pin", CPU: -1, Err: ErrPinningUnsupported}
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		err := p.try()
		if err == nil || err.(*PinError).CPU >= 0 {
			runtime.UnlockOSThread() // the mask is the process's again
		}
		errc <- err
	}()
	if err := <-errc; err != nil {
		return err
	}
	p.on = true
	return nil
}

// cpuFor returns the CPU core i is pinned to, or -1 without pinning.
func (p *pinner) cpuFor(i int) int {
	if !p.on {
		return -1
	}
	return p.cpus[i%len(p.cpus)]
}

// pin pins the calling (locked) thread to cpu. Failures after New are
// counted, not fatal: the core still runs, unpinned.
func (p *pinner) pin(cpu int) {
	if !p.on || cpu < 0 {
		return
	}
	if pinThread(cpu) != nil {
		p.errs.Add(1)
	}
}

// unpin restores the process mask on the calling thread before it is
// unlocked and returned to the Go runtime.
func (p *pinner) unpin() {
	if p.on && setThreadMask(&p.orig) != nil {
		p.errs.Add(1)
	}
}
