package model

import (
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// exec runs one op in the body of j.
func (r *runner) exec(j *kc.Job, op *Op) {
	switch op.Kind {
	case OpLaunch:
		r.launch(j, op)
	case OpJoin:
		r.mu.Lock()
		d := r.defs[op.Target]
		r.mu.Unlock()
		if d != nil {
			v, err := d.Await(j)
			r.record(op, []error{err}, v)
			return
		}
		r.record(op, []error{r.target(j, op.Target).Join(j)})
	case OpReady:
		r.mu.Lock()
		sig := r.sigs[op.Target]
		r.mu.Unlock()
		sig.Recv(j)
	case OpCancel:
		t := r.target(j, op.Target)
		ok := t.Cancel(causeErr(op.K))
		if op.Wait == 1 {
			r.record(op, []error{t.Join(j)}, b2i(ok))
		} else {
			r.record(op, nil, b2i(ok))
		}
	case OpCheck:
		done := 0
		select {
		case <-j.Done():
			done = 1
		default:
		}
		r.record(op, []error{j.Check(), j.Err()}, b2i(j.IsCancelled()), done)
	case OpScope:
		c := op.Child
		var err error
		switch c.Kind {
		case JobScope:
			err = j.Scope(r.body(c))
		case JobSupScope:
			err = j.SupervisorScope(r.body(c))
		default:
			d := [...]time.Duration{0, time.Hour, time.Millisecond}[c.Timeout]
			err = j.WithTimeout(d, r.body(c))
		}
		r.record(op, []error{err})
	case OpShield:
		err := j.Shield(func() error {
			for _, in := range op.Ops {
				r.exec(j, in)
			}
			return nil
		})
		r.record(op, []error{err})
	case OpOpen:
		var opts []kc.JobOption
		if op.Child.Kind == JobSupNursery {
			opts = append(opts, kc.Supervisor())
		}
		n, err := j.Open(opts...)
		if err == nil {
			r.setJob(op.Child.ID, n)
		}
		r.record(op, []error{err})
	case OpClose:
		r.target(j, op.Target).Close()
	case OpAwaitAll:
		r.record(op, []error{r.target(j, op.Target).AwaitAll(j)})
	case OpTryResult:
		err, done := r.target(j, op.Target).TryResult()
		r.record(op, []error{err}, b2i(done))
	case OpObserve:
		t := r.target(j, op.Target)
		st, done := t.State(), 0
		select {
		case <-t.Done():
			done = 1
		default:
		}
		r.record(op, []error{t.Err()}, int(st), done, b2i(t.IsCancelled()))
	case OpOnCancel:
		cnt := new(atomic.Int32)
		r.mu.Lock()
		r.hooks[op.K] = cnt
		r.mu.Unlock()
		k, panics := op.K, op.Panic
		stop := r.target(j, op.Target).OnCancel(func() {
			cnt.Add(1)
			if panics {
				panic(k)
			}
		})
		r.mu.Lock()
		r.stops[op.K] = stop
		r.mu.Unlock()
		r.record(op, nil, int(cnt.Load()))
	case OpStop:
		r.mu.Lock()
		stop := r.stops[op.K]
		r.mu.Unlock()
		r.record(op, nil, b2i(stop()))
	case OpLease:
		rel, err := r.target(j, op.Target).Lease()
		if err == nil {
			r.mu.Lock()
			r.leases[op.K] = rel
			r.mu.Unlock()
		}
		r.record(op, []error{err})
	case OpRelease:
		r.mu.Lock()
		rel := r.leases[op.K]
		r.mu.Unlock()
		if rel != nil {
			rel()
		}
	default:
		r.composite(j, op)
	}
}

func (r *runner) launch(j *kc.Job, op *Op) {
	t := r.target(j, op.Target)
	c := op.Child
	sig, _ := kc.NewChan[struct{}](1)
	r.mu.Lock()
	r.sigs[c.ID] = sig
	r.mu.Unlock()
	var cj *kc.Job
	var d *kc.Deferred[int]
	var err error
	switch c.Kind {
	case JobAsync:
		body := r.body(c)
		id := c.ID
		d, err = kc.Async(t, func(j *kc.Job) (int, error) { return id, body(j) })
		if err == nil {
			cj = d.Job()
		}
	case JobSupervisor:
		cj, err = t.Launch(r.body(c), kc.Supervisor())
	case JobDetached:
		cj, err = t.Launch(r.body(c), kc.Detached())
	default:
		cj, err = t.Launch(r.body(c))
	}
	if err != nil {
		r.record(op, []error{err})
		return
	}
	r.mu.Lock()
	r.jobs[c.ID] = cj
	if d != nil {
		r.defs[c.ID] = d
	}
	r.mu.Unlock()
	switch op.Wait {
	case 1:
		if d != nil {
			v, err := d.Await(j)
			r.record(op, []error{nil, err}, v)
			return
		}
		r.record(op, []error{nil, cj.Join(j)})
		return
	case 2:
		sig.Recv(j)
	}
	r.record(op, []error{nil})
}
