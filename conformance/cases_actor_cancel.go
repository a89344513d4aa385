package conformance

import (
	"sync/atomic"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// actorCancelCases check that producers, actors and pools never leave a
// waiter outside them waiting forever: a producer or actor cancelled before
// its body starts still closes its channel, and a discarded pool item lets
// a waiting Get make a new one.
func actorCancelCases() []Case {
	return []Case{
		mk("ProduceCancelledBeforeStart", "03 kc_scope_produce: the channel closes however the producer ends", produceCancelledBeforeStart),
		mk("ActorCancelledBeforeStart", "03 kc_scope_actor: the mailbox closes however the actor ends", actorCancelledBeforeStart),
		mk("PoolDiscardWakesGet", "05 Channels: owned (pool), Discard", poolDiscardWakesGet),
	}
}

// cancelRounds is how many producers and actors the cases cancel right after
// starting them: most are cancelled before their body starts, some after.
const cancelRounds = 200

// A producer whose nursery is cancelled right after Produce (most often
// before the body starts) closes its channel: a Recv from outside the
// cancelled subtree gets the value, if the body ran and sent it, or a
// *ChanClosedError that matches ErrClosed and wraps the cancellation.
func produceCancelledBeforeStart(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		stop := p.deadman("Recv from a producer cancelled at its start", func() { j.Cancel(nil) })
		defer stop()
		for range cancelRounds {
			n, err := j.Open()
			if !p.job("Open", n, err) {
				return nil
			}
			out, err := kc.Produce(n, 0, func(pj *kc.Job, out *kc.Chan[int]) error { return out.Send(pj, 1) })
			if !p.noErr("Produce", err) {
				return nil
			}
			n.Cancel(errCause)
			v, err := out.Recv(j)
			if err == nil {
				if !eq(p, "value received", v, 1) {
					return nil
				}
				_, err = out.Recv(j)
			} else if !p.is("Recv from the cancelled producer", err, kc.ErrClosed, kc.ErrCancelled, errCause) {
				return nil
			}
			if !p.is("Recv once the cancelled producer ended", err, kc.ErrClosed) ||
				!p.is("AwaitAll of the cancelled nursery", n.AwaitAll(j), kc.ErrCancelled) {
				return nil
			}
		}
		return nil
	}))
}

// An actor whose nursery is cancelled right after NewActor closes its
// mailbox: a Send from outside the cancelled subtree is taken, if the actor
// ran and received it, or gets a *ChanClosedError that matches ErrClosed
// and wraps the cancellation; later Sends get ErrClosed.
func actorCancelledBeforeStart(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		stop := p.deadman("Send to an actor cancelled at its start", func() { j.Cancel(nil) })
		defer stop()
		for range cancelRounds {
			n, err := j.Open()
			if !p.job("Open", n, err) {
				return nil
			}
			a, err := kc.NewActor(n, 0, func(*kc.Job, int) error { return nil })
			if !p.noErr("NewActor", err) {
				return nil
			}
			n.Cancel(errCause)
			if err := a.Send(j, 1); err != nil && !p.is("Send to the cancelled actor", err, kc.ErrClosed, kc.ErrCancelled, errCause) {
				return nil
			}
			if !p.is("Send once the cancelled actor ended", a.Send(j, 2), kc.ErrClosed, kc.ErrCancelled) ||
				!p.is("Join of the cancelled actor", a.Job().Join(j), kc.ErrCancelled, errCause) ||
				!p.is("AwaitAll of the cancelled nursery", n.AwaitAll(j), kc.ErrCancelled) {
				return nil
			}
		}
		return nil
	}))
}

// Discard frees a place in a full pool: a Get already waiting makes a new
// item. A create that fails frees its place too, for the next waiting Get.
func poolDiscardWakesGet(rt *kc.Runtime, p *probe) {
	var made atomic.Int32
	pool, err := kc.NewPool(1, func() (*int, error) {
		if made.Add(1) == 2 {
			return nil, errBoom // the second creation fails
		}
		return new(int), nil
	}, nil)
	if !p.noErr("NewPool", err) {
		return
	}
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		stop := p.deadman("Gets waiting on a pool after Discard", func() { j.Cancel(nil) })
		defer stop()
		x, err := pool.Get(j)
		if !p.noErr("first Get", err) {
			return nil
		}
		return j.SupervisorScope(func(s *kc.Job) error {
			var got [2]*int
			var kids [2]*kc.Job
			for i := range kids {
				kids[i], err = s.Launch(func(c *kc.Job) error { v, err := pool.Get(c); got[i] = v; return err })
				if !p.job("Launch Get", kids[i], err) {
					return nil
				}
				if !p.waitUntil("Get waiting", func() bool { return pool.Waiting() == i+1 }) {
					return nil
				}
			}
			eq(p, "items while two Gets wait", pool.Created(), 1)
			pool.Discard()
			failed := 0
			for i, c := range kids {
				if err := c.Join(s); err != nil {
					failed++
					p.is("the Get whose create failed", err, errBoom)
				} else {
					p.check(got[i] != nil && got[i] != x, "Get after Discard: got %p; want a new item", got[i])
				}
			}
			eq(p, "Gets that got the create error", failed, 1)
			eq(p, "items created", made.Load(), int32(3))
			eq(p, "items in the pool", pool.Created(), 1)
			eq(p, "Gets waiting at the end", pool.Waiting(), 0)
			return nil
		})
	}))
}
