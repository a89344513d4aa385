package conformance

import (
	"errors"
	"sync/atomic"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// Actors, producers, the owned pool and the ordered task channel (spec 03
// kc_scope_actor and kc_scope_produce, spec 05 channel variants).
func actorCases() []Case {
	return []Case{
		mk("ActorOrderAndClose", "03 kc_scope_actor", actorOrderAndClose),
		mk("ActorFailure", "03 kc_scope_actor; DESIGN Panics (actor handlers)", actorFailure),
		mk("ProduceValues", "03 kc_scope_produce", produceValues),
		mk("ProduceFailure", "03 kc_scope_produce: failure closes the channel", produceFailure),
		mk("PoolBounded", "05 Channels: owned (pool)", poolBounded),
		mk("OrderedTasks", "05 Channels: ordered task-channel pattern", orderedTasks),
	}
}

// An actor handles messages one at a time in arrival order, drains its
// mailbox after Close and then ends Completed; sends after that fail.
func actorOrderAndClose(rt *kc.Runtime, p *probe) {
	const n = 100
	var got []int
	var inHandler, overlap atomic.Int32
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		a, err := kc.NewActor(j, 4, func(_ *kc.Job, m int) error {
			if inHandler.Add(1) > 1 {
				overlap.Add(1)
			}
			got = append(got, m)
			inHandler.Add(-1)
			return nil
		})
		if !p.noErr("NewActor", err) {
			return nil
		}
		for i := range n {
			if !p.noErr("Send", a.Send(j, i)) {
				break
			}
		}
		p.noErr("Close", a.Close())
		p.noErr("actor's Join", a.Job().Join(j))
		p.state("actor after Close and drain", a.Job(), kc.Completed)
		p.is("Send after the actor ended", a.Send(j, n), kc.ErrClosed)
		return nil
	}))
	eq(p, "messages handled", len(got), n)
	for i, m := range got {
		if m != i {
			p.failf("message %d: got %d; want %d (arrival order)", i, m, i)
			break
		}
	}
	eq(p, "handlers running at once (beyond one)", overlap.Load(), int32(0))
}

// A failing handler fails the actor and its scope; a panicking one fails it
// with a *PanicError; either way later sends fail instead of hanging.
func actorFailure(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var a *kc.Actor[int]
		err := j.Scope(func(s *kc.Job) error {
			var err error
			a, err = kc.NewActor(s, 0, func(_ *kc.Job, m int) error {
				if m == 3 {
					return errBoom
				}
				return nil
			})
			if err != nil {
				return err
			}
			for i := range 10 {
				if err := a.Send(s, i); err != nil {
					return nil // the actor failed and its mailbox closed, or s was cancelled
				}
			}
			return nil
		})
		p.is("Scope of a failing actor", err, errBoom)
		if a != nil {
			p.state("failed actor", a.Job(), kc.Failed)
			p.is("Send to a failed actor", a.TrySend(1), kc.ErrClosed, errBoom)
		}
		err = j.Scope(func(s *kc.Job) error {
			a, err := kc.NewActor(s, 1, func(*kc.Job, string) error { panic("actor panic") })
			if err != nil {
				return err
			}
			return a.Send(s, "hello")
		})
		p.panicErr("Scope of a panicking actor", err, "actor panic")
		_, err = kc.NewActor[int](j, -1, func(*kc.Job, int) error { return nil })
		p.is("NewActor with capacity -1", err, kc.ErrBadCapacity)
		_, err = kc.NewActor[int](j, 0, nil)
		p.is("NewActor with a nil handler", err, kc.ErrNilBody)
		return nil
	}))
}

// A producer's values arrive in order, then ErrClosed; a consumer that
// closes the channel early stops the producer without failing anything.
func produceValues(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		out, err := kc.Produce(j, 2, func(pj *kc.Job, out *kc.Chan[int]) error {
			for i := range 10 {
				if err := out.Send(pj, i); err != nil {
					return err
				}
			}
			return nil
		})
		if !p.noErr("Produce", err) {
			return nil
		}
		for i := range 10 {
			v, err := out.Recv(j)
			p.noErr("Recv", err)
			eq(p, "produced value", v, i)
		}
		_, err = out.Recv(j)
		p.is("Recv after the producer returned", err, kc.ErrClosed)

		endless, err := kc.Produce(j, 0, func(pj *kc.Job, out *kc.Chan[int]) error {
			for i := 0; ; i++ {
				if err := out.Send(pj, i); err != nil {
					return err
				}
			}
		})
		if !p.noErr("Produce (endless)", err) {
			return nil
		}
		for range 3 {
			_, err := endless.Recv(j)
			p.noErr("Recv from the endless producer", err)
		}
		p.noErr("consumer's Close", endless.Close())
		return nil
	}))
}

// A producer that fails closes its channel with the failure, which also
// fails the enclosing scope.
func produceFailure(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var recvErr error
		var n int
		err := j.Scope(func(s *kc.Job) error {
			out, err := kc.Produce(s, 0, func(pj *kc.Job, out *kc.Chan[int]) error {
				out.Send(pj, 1)
				out.Send(pj, 2)
				return errBoom
			})
			if err != nil {
				return err
			}
			for {
				if _, recvErr = out.Recv(nil); recvErr != nil {
					return nil
				}
				n++
			}
		})
		p.is("Scope of a failing producer", err, errBoom)
		eq(p, "values received before the failure", n, 2)
		p.is("Recv after the producer failed", recvErr, kc.ErrClosed, errBoom)
		var ce *kc.ChanClosedError
		p.check(errors.As(recvErr, &ce), "Recv after the producer failed: got %T; want a *kc.ChanClosedError", recvErr)
		return nil
	}))
}

// A pool never makes more than max items; a Get beyond them waits for a
// Put, which resets the item. A Discard with no item made changes nothing.
func poolBounded(rt *kc.Runtime, p *probe) {
	var made, resets atomic.Int32
	pool, err := kc.NewPool(2, func() (*int, error) { made.Add(1); v := 0; return &v, nil }, func(v *int) { *v = 0; resets.Add(1) })
	if !p.noErr("NewPool", err) {
		return
	}
	_, err = kc.NewPool[int](0, func() (int, error) { return 0, nil }, nil)
	p.is("NewPool(0)", err, kc.ErrBadCapacity)
	pool.Discard()
	eq(p, "items created after a Discard with none made", pool.Created(), 0)
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		x, err1 := pool.Get(j)
		y, err2 := pool.Get(j)
		if !p.noErr("Get", err1) || !p.noErr("Get", err2) {
			return nil
		}
		*x = 7
		var third *int
		g, err := j.Launch(func(c *kc.Job) error { v, err := pool.Get(c); third = v; return err })
		if !p.job("Launch third Get", g, err) {
			return nil
		}
		p.waitUntil("third Get waiting", func() bool { return pool.Waiting() == 1 })
		eq(p, "items created while a Get waits", pool.Created(), 2)
		p.noErr("Put", pool.Put(x))
		p.noErr("third Get", g.Join(j))
		p.check(third == x, "third Get: got another item; want the one put back")
		if third != nil {
			eq(p, "put-back item after reset", *third, 0)
		}
		eq(p, "resets", resets.Load(), int32(1))
		eq(p, "items made", made.Load(), int32(2))
		p.noErr("Put", pool.Put(y))
		p.noErr("Put", pool.Put(third))
		p.is("Put beyond max", pool.Put(new(int)), kc.ErrPoolFull)
		return nil
	}))
}

// Tasks sent on an ordered task channel are received in send order,
// whatever order they finish in.
func orderedTasks(rt *kc.Runtime, p *probe) {
	const n = 5
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		ch, _ := kc.NewChan[*kc.Deferred[int]](n)
		var gates [n]*kc.Chan[struct{}]
		for i := range n {
			gates[i], _ = kc.NewChan[struct{}](0)
			i := i
			if err := kc.SendTask(j, ch, func(c *kc.Job) (int, error) {
				if _, err := gates[i].Recv(c); !errors.Is(err, kc.ErrClosed) {
					return 0, err // closed in reverse order below
				}
				return i * 10, nil
			}); !p.noErr("SendTask", err) {
				j.Cancel(nil)
				return nil
			}
		}
		ch.Close()
		for i := n - 1; i >= 0; i-- {
			gates[i].Close()
		}
		for i := range n {
			v, err := kc.RecvTask(j, ch)
			p.noErr("RecvTask", err)
			eq(p, "result in send order", v, i*10)
		}
		_, err := kc.RecvTask(j, ch)
		p.is("RecvTask after the last", err, kc.ErrClosed)
		return nil
	}))
}
