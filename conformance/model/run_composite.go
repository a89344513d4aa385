package model

import (
	"sync"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// composite runs the ops that make several API calls as one step.
func (r *runner) composite(j *kc.Job, op *Op) {
	c := op.Child
	switch op.Kind {
	case OpProduce:
		var vals []int
		var recvErr error
		ran := false
		err := j.SupervisorScope(func(s *kc.Job) error {
			ran = true
			r.started(c.ID, s)
			ch, err := kc.Produce(s, op.Cap, func(p *kc.Job, out *kc.Chan[int]) error {
				r.started(c.ID+1, p)
				for i := range op.Count {
					if err := out.Send(p, i); err != nil {
						return err
					}
				}
				if op.K >= 0 {
					return failErrs[op.K]
				}
				return nil
			})
			if err != nil {
				recvErr = err
				return nil
			}
			for {
				v, err := ch.Recv(s)
				if err != nil {
					recvErr = err
					return nil
				}
				vals = append(vals, v)
			}
		})
		if !ran {
			r.record(op, []error{err})
			return
		}
		r.record(op, []error{recvErr, err}, vals...)
	case OpActor:
		var mu sync.Mutex
		var handled []int
		k := op.K
		a, err := kc.NewActor(j, op.Cap, func(aj *kc.Job, m int) error {
			r.started(c.ID, aj)
			mu.Lock()
			handled = append(handled, m)
			mu.Unlock()
			if m == k {
				return failErrs[k]
			}
			return nil
		})
		if err != nil {
			r.record(op, []error{err})
			return
		}
		r.setJob(c.ID, a.Job())
		n := op.Count
		if k >= 0 {
			n = k + 1
		}
		var sendErr error
		for i := range n {
			if err := a.Send(j, i); err != nil && sendErr == nil {
				sendErr = err
			}
		}
		if k < 0 {
			if err := a.Close(); err != nil && sendErr == nil {
				sendErr = err
			}
		}
		joinErr := a.Job().Join(j)
		mu.Lock()
		h := append([]int(nil), handled...)
		mu.Unlock()
		r.record(op, []error{nil, sendErr, joinErr}, h...)
	case OpActorCancel:
		a, err := kc.NewActor(j, 1, func(aj *kc.Job, m int) error { return nil })
		if err != nil {
			r.record(op, []error{err})
			return
		}
		r.setJob(c.ID, a.Job())
		ok := a.Job().Cancel(nil)
		joinErr := a.Job().Join(j)
		r.record(op, []error{nil, joinErr, a.TrySend(1)}, b2i(ok))
	case OpProduceCancel:
		n, err := j.Open()
		if err != nil {
			r.record(op, []error{err})
			return
		}
		r.setJob(c.ID, n)
		ch, err := kc.Produce(n, 0, func(p *kc.Job, out *kc.Chan[int]) error {
			r.started(c.ID+1, p)
			return out.Send(p, 0)
		})
		if err != nil {
			r.record(op, []error{err})
			return
		}
		ok := n.Cancel(nil)
		_, recvErr := ch.Recv(j)
		r.record(op, []error{nil, recvErr, n.AwaitAll(j)}, b2i(ok))
	case OpSelect:
		a, _ := kc.NewChan[int](1)
		b, _ := kc.NewChan[int](1)
		switch op.K {
		case 0:
			a.TrySend(1)
		case 1:
			b.TrySend(1)
		}
		i, err := kc.Select(j, a.RecvCase(nil), b.RecvCase(nil))
		r.record(op, []error{err}, i)
	case OpSelectRepeat:
		ch, _ := kc.NewChan[int](1)
		ch.TrySend(7)
		var v int
		rc := ch.RecvCase(&v)
		_, err := kc.Select(j, rc, rc)
		r.record(op, []error{err})
	case OpPoolDiscard:
		p, _ := kc.NewPool(1, func() (int, error) { return 1, nil }, nil)
		p.Get(j)
		sig, _ := kc.NewChan[struct{}](1)
		cj, err := j.Launch(func(cj *kc.Job) error {
			r.started(c.ID, cj)
			sig.TrySend(struct{}{})
			_, err := p.Get(cj)
			return err
		})
		if err != nil {
			r.record(op, []error{err})
			return
		}
		r.setJob(c.ID, cj)
		sig.Recv(j)
		p.Discard()
		r.record(op, []error{nil, cj.Join(j)})
	case OpForeignChain:
		err := j.Scope(func(s *kc.Job) error {
			gates := make([]chan struct{}, op.Count)
			for i := range gates {
				gates[i] = make(chan struct{})
			}
			for i := 1; i < op.Count; i++ {
				if _, err := s.Launch(func(*kc.Job) error { <-gates[i-1]; close(gates[i]); return nil }); err != nil {
					return err
				}
			}
			_, err := s.Launch(func(*kc.Job) error { close(gates[0]); return nil })
			return err
		})
		r.record(op, []error{err})
	case OpSleep:
		err := j.Sleep(time.Duration(op.K) * time.Microsecond)
		r.record(op, []error{err, j.Yield()})
	case OpWaitAll:
		r.record(op, []error{j.WaitAll(-1)})
	case OpJoinSelf:
		r.record(op, []error{r.target(j, op.Target).Join(j)})
	}
}
