package kc

import "github.com/kcbench/kcbench/internal/goruntime"

// Hand-off of a wait to the executor: instead of blocking a goroutine in
// Parker.Wait, an executor that runs tasks on coroutines may suspend the
// waiting coroutine and give the Parker a Resumer, which the wake calls.
//
// Parker.hand is the hand-off word, one of the handState values. The
// waiter's side (Suspend, by the executor once the waiting code has
// stopped running; or, in directPark builds, Wait's commit once the
// goroutine is marked waiting) and signal (the winner of the wake, once)
// race on it; whichever comes second sees what the first did:
//
//   - the waiter first: its CAS stores handSuspended (after it wrote res)
//     or handParked (after it wrote g); signal's swap reads that state and
//     calls res.Resume or readies g. The CAS and the swap are sequentially
//     consistent, so the swap sees the write that came before the CAS, and
//     the resumed waiter sees everything the waker wrote before the swap
//     (the wake reason, a channel's value).
//   - signal first: its swap stores handSignalled, finding handWaiting;
//     the waiter's CAS fails, so Suspend reports false (the executor
//     resumes the waiter itself) and Wait does not park.
//
// Without directPark (race builds) Wait blocks on the WaitGroup instead:
// signal swaps only for a Parker that may be suspended (not quick), and
// releases the WaitGroup unless it found handSuspended.
//
// Either way signal decides before it releases anyone, and Done, Resume or
// the ready is its last touch of the Parker: the core may reuse a Parker
// (an own wait node of a channel) as soon as its owner has been woken,
// and init resets hand for the next wait. A quick Parker (channel waits) is
// never handed off: Suspend panics on it.

// Resumer is what an executor gives Parker.Suspend: the wake of the Parker
// calls Resume instead of releasing Wait.
type Resumer interface {
	// Resume is called exactly once, on the goroutine that won the wake,
	// after the wake reason is stored. It must not block: the waker may
	// hold locks of the core. It arranges for the suspended waiter to run
	// again; when it does, the wait is over (Parker.Wait is not called).
	Resume()
}

// handState is the value of Parker.hand.
type handState = uint32

const (
	// handWaiting: not woken, no resumer. Moves to handSuspended (Suspend)
	// or handSignalled (signal), once.
	handWaiting handState = iota
	// handSuspended: res is installed and the waiter is suspended; the
	// wake calls res.Resume. Moves to handSignalled (signal).
	handSuspended
	// handSignalled: signal has decided (and is about to release Wait or
	// call Resume). Final until init prepares the Parker for another wait.
	handSignalled
	// handParked: the waiter is parked in Wait (directPark builds), g
	// names it, and the wake readies it. Moves to handSignalled (signal).
	handParked
)

// Suspend hands the wait on p to r: the executor calls it from Park,
// instead of Wait, once the waiting code has stopped running (a coroutine
// that yielded to its driver). It reports true if r is installed, in which
// case the wake calls r.Resume exactly once (maybe before Suspend returns,
// on another goroutine); false if the wake already came, in which case r is
// never called and the executor resumes the waiter at once. Park must
// return only after the wake, in both cases. Suspend at most once per
// Parker, never on a quick one (it panics).
func (p *Parker) Suspend(r Resumer) bool {
	if p.quick {
		panic("kc: Suspend on a quick Parker")
	}
	p.res = r // published by the CAS below (see signal)
	return p.hand.CompareAndSwap(handWaiting, handSuspended)
}

// Quick reports whether the core expects the wake within a few goroutine
// switches (a blocked channel operation; see Spin). Such a wait must be
// waited out with Wait, not handed off with Suspend.
func (p *Parker) Quick() bool { return p.quick }

// signal releases the waiter: it calls the Resumer that Suspend installed,
// or else releases Wait. The winner of the wake calls it exactly once. It
// never blocks, so it may be called with locks held.
func (p *Parker) signal() {
	if directPark {
		switch p.hand.Swap(handSignalled) {
		case handSuspended:
			p.res.Resume() // res was written before Suspend's CAS, which the swap read
		case handParked:
			// g was written before the commit's CAS, which the swap read;
			// the waiter stays parked until Ready, so p is not reused yet.
			goruntime.Ready(p.g)
		}
		// handWaiting: Wait has not parked; it will see handSignalled
		// (its load, or its commit's failed CAS) and not park.
		return
	}
	if !p.quick && p.hand.Swap(handSignalled) == handSuspended {
		p.res.Resume() // res was written before Suspend's CAS, which the swap read
		return
	}
	p.sema.Done()
}
