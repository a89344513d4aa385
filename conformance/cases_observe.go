package conformance

import (
	"fmt"
	"sync"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// observeCases check spec 01's counters and trace events.
func observeCases() []Case {
	return []Case{
		mk("CountersExact", "01 Observability: counters exactly once", countersExact),
		mk("TraceOrder", "01 §4.21 trace events", traceOrder),
	}
}

// The counters of a known tree, as deltas: each event counted exactly once.
// A job whose body fails passes through Cancelling (it cancels its own
// children), so it counts one cancellation request.
func countersExact(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		p.awaitRunWaiter(rt)
		before := rt.Stats()
		// A supervisor with one completing and one failing child:
		// 3 created, 2 completed, 1 failed, 1 cancellation (the failing job's).
		err := j.SupervisorScope(func(s *kc.Job) error {
			_, err1 := s.Launch(nop)
			_, err2 := s.Launch(failer)
			p.noErr("Launch", err1)
			p.noErr("Launch", err2)
			return nil
		})
		p.noErr("SupervisorScope", err)
		// A cancelled nursery with a sleeping child: 2 created, 2
		// cancellations, 2 cancelled.
		n, err := j.Open()
		if p.job("Open", n, err) {
			c, err := n.Launch(sleeper)
			p.job("Launch", c, err)
			n.Cancel(nil)
			p.is("AwaitAll", n.AwaitAll(j), kc.ErrCancelled)
		}
		mid := rt.Stats()
		d := statsDelta(before, mid)
		p.stats("Stats after the supervisor and the nursery", d, 5, 3, 1, 2, 2)
		eq(p, "WaitersWoken delta after the supervisor and the nursery", d.WaitersWoken, d.WaitersRegistered)

		// One deferred, awaited once while pending: 1 created, 1 completed,
		// exactly 1 waiter registered and woken.
		gate := make(chan struct{})
		df, err := kc.Async(j, func(*kc.Job) (int, error) { <-gate; return 3, nil })
		if !p.noErr("Async", err) {
			close(gate)
			return nil
		}
		got := make(chan int)
		go func() { v, _ := df.Await(nil); got <- v }()
		p.waitUntil("the Await to register", func() bool { return rt.Stats().WaitersRegistered > mid.WaitersRegistered })
		close(gate)
		eq(p, "Await value", <-got, 3)
		d = statsDelta(mid, rt.Stats())
		p.stats("Stats of the awaited deferred", d, 1, 0, 0, 1, 0)
		eq(p, "WaitersRegistered delta of one Await", d.WaitersRegistered, 1)
		eq(p, "WaitersWoken delta of one Await", d.WaitersWoken, 1)
		return nil
	}))
}

// traceLog is a Tracer that keeps every event in order.
type traceLog struct {
	mu  sync.Mutex
	evs []kc.Event
}

func (l *traceLog) Trace(e kc.Event) {
	l.mu.Lock()
	l.evs = append(l.evs, e)
	l.mu.Unlock()
}

// borrowed lends an executor to a second Runtime: the first one owns it and
// closes it.
type borrowed struct{ kc.Executor }

func (borrowed) Close() error { return nil }

// traceOrder runs a known tree on a second Runtime that shares the case's
// executor and has a Tracer, then checks the events: each job's events come
// in a legal order, parents outlive their children, and the totals match
// the counters.
func traceOrder(rt *kc.Runtime, p *probe) {
	log := new(traceLog)
	rt2 := kc.New(borrowed{rt.Executor()}, kc.WithTracer(log), kc.WithName(rt.Name()))
	var det *kc.Job
	p.noErr("Run", rt2.Run(ctx, func(j *kc.Job) error {
		p.noErr("Scope", j.Scope(func(s *kc.Job) error {
			for i := range 3 {
				d, err := kc.Async(s, func(*kc.Job) (int, error) { return i, nil })
				if p.noErr("Async", err) {
					d.Await(s)
				}
			}
			return nil
		}))
		p.noErr("SupervisorScope", j.SupervisorScope(func(s *kc.Job) error {
			_, err := s.Launch(failer)
			p.noErr("Launch", err)
			return nil
		}))
		if n, err := j.Open(); p.job("Open", n, err) {
			for range 2 {
				_, err := n.Launch(sleeper)
				p.noErr("Launch", err)
			}
			n.Cancel(nil)
			p.is("AwaitAll", n.AwaitAll(j), kc.ErrCancelled)
		}
		p.is("WithTimeout", j.WithTimeout(2*time.Millisecond, sleeper), kc.ErrTimeout)
		var err error
		if det, err = j.Launch(nop, kc.Detached()); p.job("Launch Detached()", det, err) {
			p.noErr("Join", det.Join(j))
		}
		return nil
	}))
	p.noErr("Close of the tracing runtime", rt2.Close())
	log.mu.Lock()
	defer log.mu.Unlock()
	checkTrace(p, log.evs, rt2.Stats(), 12)
}

// legalNext lists each state's legal successors (state.go).
var legalNext = map[kc.State][]kc.State{
	kc.Active:     {kc.Closing, kc.Cancelling, kc.Completed, kc.Failed, kc.Cancelled},
	kc.Closing:    {kc.Cancelling, kc.Completed, kc.Failed},
	kc.Cancelling: {kc.Failed, kc.Cancelled},
}

func checkTrace(p *probe, evs []kc.Event, st kc.Stats, wantJobs int) {
	type jobTrace struct {
		create, attach, finalize int // event indices, -1 if none
		events                   int // how many of its events came so far
		parent                   *kc.Job
		state                    kc.State
		cancelReq                bool            // seen EvJobCancelReq
		wantCancelling           bool            // the next event must be EvJobState(Cancelling)
		waits                    map[uint64]bool // waiter id -> registered and not yet woken
	}
	jobs := map[*kc.Job]*jobTrace{}
	var counts [8]uint64
	for i, e := range evs {
		counts[e.Kind%8]++
		t := jobs[e.Job]
		if t == nil {
			if e.Kind != kc.EvJobCreate {
				p.failf("trace: got %v as job %p's first event; want %v", e.Kind, e.Job, kc.EvJobCreate)
				return
			}
			t = &jobTrace{create: i, attach: -1, finalize: -1, events: 1, parent: e.Parent, waits: map[uint64]bool{}}
			jobs[e.Job] = t
			if e.Parent != nil && jobs[e.Parent] == nil {
				p.failf("trace: got job %p created before its parent %p; want parents first", e.Job, e.Parent)
			}
			continue
		}
		where := fmt.Sprintf("trace event %d (%v of job %p)", i, e.Kind, e.Job)
		t.events++
		if t.finalize >= 0 {
			p.failf("%s: got an event after %v; want it last", where, kc.EvJobFinalize)
			return
		}
		if t.wantCancelling {
			if e.Kind != kc.EvJobState || e.State != kc.Cancelling {
				p.failf("%s: got it right after %v; want %v(Cancelling)", where, kc.EvJobCancelReq, kc.EvJobState)
				return
			}
			t.wantCancelling = false
		}
		switch e.Kind {
		case kc.EvJobCreate:
			p.failf("%s: got a second create; want one", where)
			return
		case kc.EvJobChildAttach:
			// Per job, not in the whole log: the Tracer contract orders
			// the events of one job; other jobs' events, emitted on other
			// goroutines, may come between a create and its attach.
			if t.attach >= 0 || t.events != 2 || e.Parent != t.parent {
				p.failf("%s: got an attach that does not follow the job's create with the same parent; want it as the job's next event", where)
				return
			}
			t.attach = i
		case kc.EvJobCancelReq:
			if t.cancelReq || t.state.Terminal() {
				p.failf("%s: got a second cancellation request, or one in state %v; want one, before the end", where, t.state)
				return
			}
			t.cancelReq, t.wantCancelling = true, true
		case kc.EvJobState:
			next := legalNext[t.state]
			ok := false
			for _, s := range next {
				ok = ok || s == e.State
			}
			if !ok {
				p.failf("%s: got %v -> %v; want a legal transition", where, t.state, e.State)
				return
			}
			t.state = e.State
		case kc.EvJobFinalize:
			if !t.state.Terminal() || e.State != t.state {
				p.failf("%s: got finalize %v in state %v; want it after the terminal state, with it", where, e.State, t.state)
				return
			}
			if e.State == kc.Cancelled && !t.cancelReq {
				p.failf("%s: got a Cancelled job without %v; want the request traced", where, kc.EvJobCancelReq)
				return
			}
			for id, waiting := range t.waits {
				if waiting {
					p.failf("%s: got finalize with waiter %x never woken; want every waiter woken first", where, id)
					return
				}
			}
			t.finalize = i
		case kc.EvJobWaitRegister:
			if t.waits[e.Waiter] {
				p.failf("%s: got waiter %x registered twice without a wake", where, e.Waiter)
				return
			}
			t.waits[e.Waiter] = true
		case kc.EvJobWaitWake:
			if !t.waits[e.Waiter] {
				p.failf("%s: got a wake of waiter %x, which is not registered", where, e.Waiter)
				return
			}
			t.waits[e.Waiter] = false
		}
	}
	eq(p, "trace: jobs", len(jobs), wantJobs)
	for j, t := range jobs {
		if t.finalize < 0 {
			p.failf("trace: job %p (state %v): got no %v; want one", j, t.state, kc.EvJobFinalize)
			continue
		}
		if t.attach >= 0 {
			if pt := jobs[t.parent]; pt != nil && pt.finalize >= 0 && pt.finalize < t.finalize {
				p.failf("trace: job %p finalized after its parent %p; want children first", j, t.parent)
			}
		}
	}
	for _, c := range []struct {
		kind kc.EventKind
		want uint64
		name string
	}{
		{kc.EvJobCreate, st.JobsCreated, "JobsCreated"},
		{kc.EvJobCancelReq, st.CancellationsRequested, "CancellationsRequested"},
		{kc.EvJobFinalize, st.JobsCompleted + st.JobsFailed + st.JobsCancelled, "terminal jobs"},
		{kc.EvJobWaitRegister, st.WaitersRegistered, "WaitersRegistered"},
		{kc.EvJobWaitWake, st.WaitersWoken, "WaitersWoken"},
	} {
		if got := counts[c.kind%8]; got != c.want {
			p.failf("trace: got %d %v events; want %d, the %s counter", got, c.kind, c.want, c.name)
		}
	}
}
