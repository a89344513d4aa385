package conformance

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// actorEdgeCases check the edges of actors, producers, the owned pool and
// the ordered task channel: what a panic closes a channel with, a failure
// after the consumer's Close, the order of a Put's reset and a Get's reuse,
// and a SendTask whose send fails.
func actorEdgeCases() []Case {
	return []Case{
		mk("ActorPanicClosesMailbox", "03 kc_scope_actor, kc_scope_produce; DESIGN Panics (actor handlers)", actorPanicClosesMailbox),
		mk("ProduceFailsAfterConsumerClose", "03 kc_scope_produce: a consumer's Close", produceFailsAfterConsumerClose),
		mk("PoolReuseAndReset", "05 Channels: owned (pool), reset hook", poolReuseAndReset),
		mk("SendTaskFailureEndsTask", "05 Channels: ordered task-channel pattern, a failed send", sendTaskFailureEndsTask),
	}
}

// An actor whose handler panics closes its mailbox with the *PanicError
// that fails it: a later Send gets a *ChanClosedError that matches
// ErrClosed and wraps it. A producer whose body panics closes its channel
// the same way.
func actorPanicClosesMailbox(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var a *kc.Actor[int]
		err := j.Scope(func(s *kc.Job) error {
			var err error
			a, err = kc.NewActor(s, 1, func(*kc.Job, int) error { panic("actor panic") })
			if err != nil {
				return err
			}
			return a.Send(s, 1) // taken into the mailbox at once (capacity 1)
		})
		p.panicErr("Scope of a panicking actor", err, "actor panic")
		if a != nil {
			err = a.TrySend(2)
			p.is("TrySend to the actor that panicked", err, kc.ErrClosed)
			p.panicErr("TrySend to the actor that panicked", err, "actor panic")
		}
		var recvErr error
		err = j.Scope(func(s *kc.Job) error {
			out, err := kc.Produce(s, 0, func(*kc.Job, *kc.Chan[int]) error { panic("producer panic") })
			if err != nil {
				return err
			}
			_, recvErr = out.Recv(nil)
			return nil
		})
		p.panicErr("Scope of a panicking producer", err, "producer panic")
		p.is("Recv from the producer that panicked", recvErr, kc.ErrClosed)
		p.panicErr("Recv from the producer that panicked", recvErr, "producer panic")
		return nil
	}))
}

// A consumer's Close makes the producer's next Send return ErrClosed; a
// body that then returns ErrClosed ends Completed (ProduceValues), but one
// that returns another error fails the producer and its scope like any
// failing body. A consumer's CloseWithError(cause) is not a plain Close:
// the Send error it gives, a *ChanClosedError wrapping cause, fails the
// producer that returns it.
func produceFailsAfterConsumerClose(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var sendErr error
		err := j.Scope(func(s *kc.Job) error {
			out, err := kc.Produce(s, 0, func(pj *kc.Job, out *kc.Chan[int]) error {
				sendErr = out.Send(pj, 1) // no receiver: it waits for the Close, or finds it
				return errBoom
			})
			if err != nil {
				return err
			}
			return out.Close()
		})
		p.is("the producer's Send after the consumer's Close", sendErr, kc.ErrClosed)
		p.is("Scope of a producer failing after the consumer's Close", err, errBoom)
		err = j.Scope(func(s *kc.Job) error {
			out, err := kc.Produce(s, 0, func(pj *kc.Job, out *kc.Chan[int]) error { return out.Send(pj, 1) })
			if err != nil {
				return err
			}
			return out.CloseWithError(errCause)
		})
		p.is("Scope of a producer returning the Send error of the consumer's CloseWithError", err, kc.ErrClosed, errCause)
		return nil
	}))
}

// Get hands out a free item before it creates one, and Put resets an item
// before any Get can take it: while the reset hook runs, the item is not
// free yet and a Get waiting for one is still waiting.
func poolReuseAndReset(rt *kc.Runtime, p *probe) {
	var made atomic.Int32
	var pool *kc.Pool[*int]
	var freeAtReset, waitingAtReset []int // Put runs reset on the caller's goroutine
	pool, err := kc.NewPool(2, func() (*int, error) { made.Add(1); return new(int), nil }, func(*int) {
		freeAtReset = append(freeAtReset, pool.Len())
		waitingAtReset = append(waitingAtReset, pool.Waiting())
	})
	if !p.noErr("NewPool", err) {
		return
	}
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		x, err := pool.Get(j)
		if !p.noErr("Get", err) || !p.noErr("Put", pool.Put(x)) {
			return nil
		}
		x2, err := pool.Get(j)
		p.noErr("Get after a Put", err)
		p.check(x2 == x, "Get after a Put: got a new item; want the free one")
		y, err := pool.Get(j)
		if !p.noErr("second Get", err) {
			return nil
		}
		eq(p, "items made", made.Load(), int32(2))
		var third *int
		g, err := j.Launch(func(c *kc.Job) error { v, err := pool.Get(c); third = v; return err })
		if !p.job("Launch third Get", g, err) || !p.waitUntil("third Get waiting", func() bool { return pool.Waiting() == 1 }) {
			return nil
		}
		p.noErr("Put while a Get waits", pool.Put(y))
		p.noErr("third Get", g.Join(j))
		p.check(third == y, "third Get: got another item; want the one put back")
		return nil
	}))
	eq(p, "free items while each Put resets its item", fmt.Sprint(freeAtReset), "[0 0]")
	eq(p, "Gets waiting while each Put resets its item", fmt.Sprint(waitingAtReset), "[0 1]")
}

// SendTask whose send fails cancels its task and waits for it to end
// before it returns the send's error, so no task outlives a failed send:
// a send cancelled while it waits for room, with the task running, and a
// send on a closed channel, with a task that waits until it is cancelled.
func sendTaskFailureEndsTask(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		ch, err := kc.NewChan[*kc.Deferred[int]](0)
		if !p.noErr("NewChan", err) {
			return nil
		}
		var started, ended atomic.Bool
		var sendErr error
		var runningAtReturn bool
		g, err := j.Launch(func(g *kc.Job) error {
			sendErr = kc.SendTask(g, ch, func(c *kc.Job) (int, error) {
				started.Store(true)
				<-c.Done()
				for range 100 { // ends a while after its cancellation
					runtime.Gosched()
				}
				ended.Store(true)
				return 0, c.Check()
			})
			runningAtReturn = started.Load() && !ended.Load()
			return nil
		})
		if !p.job("Launch", g, err) {
			return nil
		}
		p.waitUntil("the task to start", started.Load)
		p.waitUntil("SendTask's send to wait", func() bool { s, _ := ch.Blocked(); return s == 1 })
		g.Cancel(errCause)
		p.is("Join of the job whose SendTask was cancelled", g.Join(j), kc.ErrCancelled)
		p.is("SendTask cancelled while its send waits", sendErr, kc.ErrCancelled, errCause)
		p.check(!runningAtReturn, "SendTask cancelled while its send waits: returned with its task still running; want the task ended first")

		ch.Close()
		stop := p.deadman("SendTask on a closed channel, of a task that waits until it is cancelled", func() { j.Cancel(nil) })
		err = kc.SendTask(j, ch, func(c *kc.Job) (int, error) { return 0, c.Sleep(time.Hour) })
		stop()
		p.is("SendTask on a closed channel", err, kc.ErrClosed)
		return nil
	}))
}
