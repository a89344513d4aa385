package model

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// Observed is what a real run of a program observed: the same shape as
// Expect, with the runtime's errors classified.
type Observed struct {
	Run   EV
	Ops   map[int]Obs
	Jobs  map[int]JobGot
	Hooks map[int]int
	Stats kc.Stats
	Hung  bool // the run did not end within the watchdog
}

// JobGot is a job's end state as the runtime reports it.
type JobGot struct {
	State  kc.State
	Result EV
	Errors []EV
	Ran    bool
	// Leftover counts the wait nodes still queued on the channels of its
	// cancelled park (a Recv, Select or Send): a correct runtime leaves none.
	Leftover int
}

// runner executes a program on a runtime. Bodies run concurrently, so its
// maps are under mu; each op is recorded once, by the body that runs it.
type runner struct {
	p      *Program
	mu     sync.Mutex
	ops    map[int]Obs
	jobs   map[int]*kc.Job
	defs   map[int]*kc.Deferred[int]
	ran    map[int]bool
	sigs   map[int]*kc.Chan[struct{}]
	hooks  map[int]*atomic.Int32
	stops  map[int]func() bool
	leases map[int]func()
	left   map[int]int
}

// Execute runs p on rt, closes rt, and returns what it observed. If the
// run does not end within watchdog, it returns with Hung set and leaves
// the run's goroutines behind (rt is then not closed).
func Execute(rt *kc.Runtime, p *Program, watchdog time.Duration) *Observed {
	r := &runner{p: p, ops: map[int]Obs{}, jobs: map[int]*kc.Job{}, defs: map[int]*kc.Deferred[int]{},
		ran: map[int]bool{}, sigs: map[int]*kc.Chan[struct{}]{}, hooks: map[int]*atomic.Int32{},
		stops: map[int]func() bool{}, leases: map[int]func(){}, left: map[int]int{}}
	done := make(chan *Observed, 1)
	go func() { done <- r.execute(rt) }()
	t := time.NewTimer(watchdog)
	defer t.Stop()
	select {
	case o := <-done:
		return o
	case <-t.C:
		return &Observed{Hung: true}
	}
}

func (r *runner) execute(rt *kc.Runtime) *Observed {
	ctx := context.Background()
	if r.p.CtxCancelled {
		c, cancel := context.WithCancel(ctx)
		cancel()
		ctx = c
	}
	runErr := rt.Run(ctx, r.body(r.p.Root))
	closeErr := rt.Close()
	o := &Observed{Run: classify(runErr), Ops: map[int]Obs{}, Jobs: map[int]JobGot{}, Hooks: map[int]int{}, Stats: rt.Stats()}
	if closeErr != nil {
		o.Ops[-1] = Obs{Errs: []EV{classify(closeErr)}}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for n, ob := range r.ops {
		o.Ops[n] = ob
	}
	for id, j := range r.jobs {
		g := JobGot{State: j.State(), Result: classify(j.Result()), Ran: r.ran[id], Leftover: r.left[id]}
		for _, e := range j.Errors() {
			g.Errors = append(g.Errors, classify(e))
		}
		o.Jobs[id] = g
	}
	for k, c := range r.hooks {
		o.Hooks[k] = int(c.Load())
	}
	return o
}

func (r *runner) setJob(id int, j *kc.Job) {
	r.mu.Lock()
	r.jobs[id] = j
	r.mu.Unlock()
}

func (r *runner) started(id int, j *kc.Job) {
	r.mu.Lock()
	r.jobs[id] = j
	r.ran[id] = true
	r.mu.Unlock()
}

func (r *runner) job(id int) *kc.Job {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.jobs[id]
}

func (r *runner) record(op *Op, errs []error, ints ...int) {
	ob := Obs{Ints: ints}
	for _, e := range errs {
		ob.Errs = append(ob.Errs, classify(e))
	}
	r.mu.Lock()
	r.ops[op.N] = ob
	r.mu.Unlock()
}

// body returns the Func that runs spec's body.
func (r *runner) body(spec *Job) kc.Func {
	return func(j *kc.Job) error {
		r.started(spec.ID, j)
		for _, op := range spec.Body.Ops {
			r.exec(j, op)
		}
		r.mu.Lock()
		sig := r.sigs[spec.ID]
		r.mu.Unlock()
		if sig != nil {
			sig.TrySend(struct{}{})
		}
		return r.end(j, spec.ID, spec.Body.End)
	}
}

func (r *runner) end(j *kc.Job, id int, e End) error {
	switch e.Kind {
	case EndFail:
		return failErrs[e.K]
	case EndPanic:
		panic(e.K)
	case EndCheck:
		return j.Check()
	case EndPark:
		err, left := park(j, e.Park)
		if left != 0 {
			r.mu.Lock()
			r.left[id] = left
			r.mu.Unlock()
		}
		switch e.After {
		case AfterNil:
			return nil
		case AfterFail:
			return failErrs[e.K]
		}
		return err
	}
	return nil
}

// park waits until j is cancelled, in one of several ways, and returns
// the wait's error and how many wait nodes are left on its channels.
func park(j *kc.Job, p Park) (error, int) {
	blocked := func(c *kc.Chan[int]) int { s, r := c.Blocked(); return s + r }
	switch p {
	case ParkRecv:
		c, _ := kc.NewChan[int](0)
		_, err := c.Recv(j)
		return err, blocked(c)
	case ParkSelect:
		a, _ := kc.NewChan[int](0)
		b, _ := kc.NewChan[int](1)
		_, err := kc.Select(j, a.RecvCase(nil), b.RecvCase(nil))
		return err, blocked(a) + blocked(b)
	case ParkSend:
		c, _ := kc.NewChan[int](1)
		c.TrySend(0)
		err := c.Send(j, 1)
		return err, blocked(c)
	}
	return j.Sleep(time.Hour), 0
}

func (r *runner) target(j *kc.Job, id int) *kc.Job {
	if id < 0 {
		return j
	}
	t := r.job(id)
	if t == nil {
		panic(fmt.Sprintf("model: no job j%d", id))
	}
	return t
}

func causeErr(k int) error {
	if k < 0 {
		return nil
	}
	return causeErrs[k]
}
