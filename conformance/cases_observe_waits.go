package conformance

import (
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// observeWaitCases check the trace and counters of waits that end other
// than by their target's end.
func observeWaitCases() []Case {
	return []Case{
		mk("TraceWaitsThatLeave", "01 §4.21 trace events: a waiter that leaves by its cancellation or timeout", traceWaitsThatLeave),
	}
}

// A waiter that leaves its target's waiter list by itself (a Join whose
// waiting job is cancelled, a WaitAll that times out) is woken in the
// trace as in the counters: each register has its wake before the
// target's finalize, and the totals match WaitersRegistered and
// WaitersWoken. A runtime that traces only the wakes a job's end makes
// fails with a waiter never woken, or with fewer wake events than
// WaitersWoken counts.
func traceWaitsThatLeave(rt *kc.Runtime, p *probe) {
	log := new(traceLog)
	rt2 := kc.New(borrowed{rt.Executor()}, kc.WithTracer(log), kc.WithName(rt.Name()))
	p.noErr("Run", rt2.Run(ctx, func(j *kc.Job) error {
		p.awaitRunWaiter(rt2)
		c, err := j.Launch(sleeper)
		if !p.job("Launch sleeper", c, err) {
			return nil
		}
		defer c.Cancel(nil)
		before := rt2.Stats().WaitersRegistered
		w, err := j.Launch(func(w *kc.Job) error { return c.Join(w) })
		if !p.job("Launch joiner", w, err) {
			return nil
		}
		if p.waitUntil("the Join to register", func() bool { return rt2.Stats().WaitersRegistered > before }) {
			w.Cancel(errCause)
		}
		p.is("Join of the cancelled joiner", w.Join(j), kc.ErrCancelled, errCause)
		if n, err := j.Open(); p.job("Open", n, err) {
			_, err := n.Launch(sleeper)
			p.noErr("Launch into the nursery", err)
			p.is("WaitAll with a timeout", n.WaitAll(time.Millisecond), kc.ErrTimeout)
			n.Cancel(nil)
			p.is("AwaitAll", n.AwaitAll(j), kc.ErrCancelled)
		}
		return nil
	}))
	p.noErr("Close of the tracing runtime", rt2.Close())
	st := rt2.Stats()
	eq(p, "WaitersWoken of the tracing runtime", st.WaitersWoken, st.WaitersRegistered)
	log.mu.Lock()
	defer log.mu.Unlock()
	checkTrace(p, log.evs, st, 5)
}
