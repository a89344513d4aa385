package conformance

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// shutdownCases are spec 05's "Shutdown / draining" as decided for Runtime.Close.
func shutdownCases() []Case {
	return []Case{
		mk("CloseDrainsDetached", "05 Shutdown / draining", closeDrainsDetached),
		mk("CloseIdempotent", "05 Shutdown / draining", closeIdempotent),
		mk("NoGoroutineLeft", "05 Shutdown / draining", noGoroutineLeft),
		mk("CloseFromLockedThread", "05 Shutdown / draining; DESIGN Close", closeFromLockedThread),
		mk("CloseWaitsForStaleTasks", "05 Shutdown / draining; DESIGN Backends: no goroutine left after Close, stale queue entries included", closeWaitsForStaleTasks),
	}
}

// Run and Close work from a goroutine locked to its OS thread (a GUI's or
// a cgo library's main thread), after tasks parked and were woken. A
// backend that resumes or stops its coroutines from the caller's goroutine
// there makes the Go runtime throw: the process dies, which no error
// report can show, so this case fails by crashing the suite's process.
func closeFromLockedThread(rt *kc.Runtime, p *probe) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
			nur, err := j.Open()
			if !p.noErr("Open", err) {
				return nil
			}
			for range 50 {
				if _, err := nur.Launch(sleeper); !p.noErr("Launch", err) {
					break
				}
			}
			p.noErr("Sleep", j.Sleep(5*time.Millisecond)) // the sleepers park meanwhile
			nur.Cancel(nil)
			p.is("AwaitAll of the cancelled sleepers", nur.AwaitAll(j), kc.ErrCancelled)
			return nil
		}))
		p.noErr("Close", rt.Close())
	}()
	<-done
}

// Run does not wait for a detached job; Close cancels it and waits for it.
func closeDrainsDetached(rt *kc.Runtime, p *probe) {
	var det *kc.Job
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var err error
		det, err = j.Launch(sleeper, kc.Detached())
		p.job("Launch Detached()", det, err)
		return nil
	}))
	if det == nil {
		return
	}
	p.check(!det.State().Terminal(), "detached job when Run returned: got state %v; want it still sleeping", det.State())
	p.noErr("Close", rt.Close())
	p.state("detached job after Close", det, kc.Cancelled)
	p.is("detached job Result after Close", det.Result(), kc.ErrCancelled, kc.ErrClosed)
}

// Close may be called many times, concurrently; Run after it returns
// ErrClosed and runs nothing.
func closeIdempotent(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, nop))
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = rt.Close() }()
	}
	wg.Wait()
	for _, err := range errs {
		p.noErr("concurrent Close", err)
	}
	p.noErr("Close again", rt.Close())
	before := rt.Stats()
	ran := false
	p.is("Run after Close", rt.Run(ctx, func(*kc.Job) error { ran = true; return nil }), kc.ErrClosed)
	p.check(!ran, "Run after Close: got its body run; want nothing run")
	eq(p, "JobsCreated after a refused Run", rt.Stats().JobsCreated, before.JobsCreated)
}

// After Close, no goroutine the runtime started is left.
func noGoroutineLeft(rt *kc.Runtime, p *probe) {
	base := settledGoroutines()
	err := rt.Run(ctx, func(j *kc.Job) error {
		for range 20 {
			if _, err := j.Launch(sleeper); !p.noErr("Launch", err) {
				break
			}
		}
		_, err := j.Launch(sleeper, kc.Detached())
		p.noErr("Launch Detached()", err)
		p.is("WithTimeout", j.WithTimeout(time.Millisecond, sleeper), kc.ErrTimeout)
		d, err := kc.Async(j, func(*kc.Job) (int, error) { return 1, nil })
		if p.noErr("Async", err) {
			d.Await(j)
		}
		j.OnCancel(func() {})
		j.Cancel(nil)
		return nil
	})
	p.is("Run of a cancelled root", err, kc.ErrCancelled)
	p.noErr("Close", rt.Close())
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		p.failf("goroutines 2s after Close: got %d; want at most %d, as before the case", n, base)
	}
}

// settledGoroutines returns the number of goroutines once it has stopped
// falling: goroutines of earlier cases that are still on their way out
// (timer callbacks, abandoned cases ending) would otherwise be counted in
// the baseline and hide a goroutine the runtime leaves behind. It waits at
// most a second.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for stable, start := 0, time.Now(); stable < 20 && time.Since(start) < time.Second; {
		time.Sleep(500 * time.Microsecond)
		switch m := runtime.NumGoroutine(); {
		case m < n:
			n, stable = m, 0
		default:
			stable++
		}
	}
	return n
}

// Close returns only once every task the executor was handed has
// returned from Run, including the tasks of children their parent ran
// inline (a Join of a child that had not started): their Run returns at
// once, but the executor still holds them (on a goroutine, in a queue)
// when the runtime's last job ends. The root runs many such children
// inline just before it returns; the goroutines as Close returns are
// counted as in GoroutinesGoneAtClose. An executor whose Close does not
// wait for the tasks it was handed leaves the stale ones behind, on
// goroutines of their own not yet run.
func closeWaitsForStaleTasks(rt *kc.Runtime, p *probe) {
	settledGoroutines()
	base := goroutinesNow()
	// Keep the other Ps busy meanwhile, so that an executor's goroutines
	// that are still to run stay queued (not counted in base: counted
	// below only if they outlive the case).
	var stop atomic.Bool
	var spinning sync.WaitGroup
	for range runtime.GOMAXPROCS(0) - 1 {
		spinning.Add(1)
		go func() {
			defer spinning.Done()
			for !stop.Load() {
			}
		}()
	}
	defer spinning.Wait()
	defer stop.Store(true)
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		for range 500 {
			c, err := j.Launch(nop)
			if !p.job("Launch", c, err) {
				return nil
			}
			if !p.noErr("Join", c.Join(j)) {
				return nil
			}
		}
		return nil
	}))
	p.noErr("Close", rt.Close())
	spinners := runtime.GOMAXPROCS(0) - 1
	if n := goroutinesNow() - spinners; n > base+closeSlack {
		p.failf("goroutines as Close returned: got %d; want at most %d (%d before the case, %d on their way out)", n, base+closeSlack, base, closeSlack)
	}
}
