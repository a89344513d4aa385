package kc

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
)

// Runtime is a job tree on an Executor. Create one with New, run root jobs
// with Run, and release it with Close. Its methods are safe for concurrent use.
type Runtime struct {
	ex     Executor // immutable
	name   string   // immutable
	tracer Tracer   // immutable; nil when tracing is off
	faults faultSet // immutable; empty outside the kcfaults build (faults_on.go)
	// stats are the counters, striped per P on lines of their own (see
	// counters), so that they share no line with the read-only fields
	// above, which every job reads.
	stats *counters
	slabs []jobSlab // one per P at New: Launch's job slabs (slab.go)

	mu      sync.Mutex
	closed  bool                  // under mu: Run and detached launches are refused
	tops    map[*Job]struct{}     // under mu: live roots and detached jobs
	drained chan struct{}         // closed once closed && len(tops) == 0
	timers  sync.WaitGroup        // armed timers whose callback may still run (timer.go)
	broken  atomic.Pointer[error] // the first executor contract violation (brokeContract: a CAS from nil, first wins); Close loads it after the timers, so one seen later is not reported
	closing sync.Once             // runs the shutdown once
	done    chan struct{}         // closed when Close has finished
	err     error                 // the executor's Close error and any contract violation; written before done is closed
	yield   func()                // immutable: the executor's Yielder, or runtime.Gosched; last, off the lines of the fields every job reads
}

// New returns a Runtime that runs jobs on ex.
func New(ex Executor, opts ...Option) *Runtime {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.name == "" {
		c.name = "custom"
		if n, ok := ex.(interface{ Name() string }); ok {
			c.name = n.Name()
		}
	}
	yield := runtime.Gosched
	if y, ok := ex.(Yielder); ok {
		yield = y.Yield
	}
	return &Runtime{ex: ex, yield: yield, name: c.name, tracer: c.tracer, faults: c.faults, stats: newCounters(runtime.GOMAXPROCS(0)), slabs: make([]jobSlab, runtime.GOMAXPROCS(0)),
		tops: make(map[*Job]struct{}), drained: make(chan struct{}), done: make(chan struct{})}
}

// Name returns the backend's name.
func (rt *Runtime) Name() string { return rt.name }

// Executor returns the executor rt runs on. A tool may build a second
// Runtime on it with other Options (the conformance suite does, to install a
// Tracer); rt still owns the executor, so that second Runtime must be given a
// wrapper whose Close does nothing, and must be closed before rt.
func (rt *Runtime) Executor() Executor { return rt.ex }

// Stats returns the counters. Each is exact, but they are read one by one,
// so a snapshot taken while jobs run may mix moments.
func (rt *Runtime) Stats() Stats { return rt.stats.snapshot() }

// Run runs body as a root job and returns its Result once it and all its
// non-detached descendants are terminal. Cancelling ctx cancels the root
// (with the context's cause); its values are visible through Job.Value and
// its deadline through Job.Deadline. If ctx is already done, the body does
// not run and Run returns the cancellation (matching ErrCancelled, and
// context.Canceled or the context's cause). After Close, Run returns
// ErrClosed.
func (rt *Runtime) Run(ctx context.Context, body Func) error {
	if body == nil {
		return ErrNilBody
	}
	if ctx == nil {
		ctx = context.Background()
	}
	r := &Job{rt: rt, body: body, x: &jobExtra{ctx: ctx}}
	if err := rt.addTop(r); err != nil {
		return err
	}
	rt.stats.add(cCreated)
	rt.trace(Event{Kind: EvJobCreate, Job: r})
	if ctx.Done() != nil {
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			defer close(fired)
			r.cancel(context.Cause(ctx), byCancel)
		})
		defer func() {
			if !stop() {
				<-fired // the cancel walk runs on the AfterFunc goroutine: let it end
			}
		}()
		// AfterFunc calls its f on a goroutine of its own even when ctx is
		// already done, which may come after the body has started, or
		// after it has ended with nil. A context cancelled before Run is
		// recorded here, before the root is spawned: the body is then
		// skipped (a job cancelled before it starts never runs its body)
		// and Run returns the cancellation. The AfterFunc's cancel then
		// finds the root already cancelled and changes nothing.
		if ctx.Err() != nil && !rt.faults.has(faultRunIgnoresDoneContext) {
			r.cancel(context.Cause(ctx), byCancel)
		}
	}
	rt.ex.Spawn((*Task)(r))
	if !r.terminal() {
		r.wait(nil, waitTerminal, 0, false)
	}
	return r.result()
}

// addTop registers a root or detached job, unless the runtime is closed.
func (rt *Runtime) addTop(j *Job) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.closed {
		return ErrClosed
	}
	rt.tops[j] = struct{}{}
	return nil
}

func (rt *Runtime) topDone(j *Job) {
	rt.mu.Lock()
	delete(rt.tops, j)
	if rt.closed && len(rt.tops) == 0 {
		close(rt.drained)
	}
	rt.mu.Unlock()
}

// Close shuts the runtime down (spec 05 "Shutdown / draining"): it refuses
// new roots, cancels every live root and detached job with cause ErrClosed,
// waits until all are terminal and every timer has stopped or fired, then
// closes the executor, which waits for its goroutines. No goroutine of the
// runtime outlives Close. Close is idempotent; every call waits for the
// shutdown and returns the executor's Close error, joined with one
// matching ErrBrokenExecutor if the executor was seen breaking its
// contract. It must not be called from inside a job.
func (rt *Runtime) Close() error {
	rt.closing.Do(func() {
		rt.mu.Lock()
		rt.closed = true
		tops := make([]*Job, 0, len(rt.tops))
		for j := range rt.tops {
			tops = append(tops, j)
		}
		if len(tops) == 0 {
			close(rt.drained)
		}
		rt.mu.Unlock()
		for _, j := range tops {
			j.Cancel(ErrClosed)
		}
		<-rt.drained
		rt.timers.Wait()
		rt.err = rt.ex.Close()
		if broken := rt.broken.Load(); broken != nil {
			rt.err = errors.Join(rt.err, *broken)
		}
		close(rt.done)
	})
	<-rt.done
	return rt.err
}
