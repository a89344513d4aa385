package conformance

import (
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Wait nodes and cancel walks (spec 05 "Channels": handoff vs cancel; spec
// 02: a cancel node is the walk's until the walk is done with it).
func chanReuseCases() []Case {
	return []Case{
		mk("ChanWaitWokenDuringCancelWalk", "05 Channels: handoff vs cancel, wait node lifetime", chanWaitWokenDuringCancelWalk),
	}
}

// A blocked Recv or Select whose job is being cancelled can be woken by a
// send before the cancel walk reaches its wait: the send finds the job
// cancelled, hands it nothing and wakes it, and the operation returns the
// cancellation. The walk still holds the wait's cancel node then, so the
// operation must not give its wait node back for reuse; the job ends
// Cancelled and the channel serves the next receiver. Many OnCancel
// callbacks, registered after the wait, come first in the walk and leave
// the send time to arrive in between.
func chanWaitWokenDuringCancelWalk(rt *kc.Runtime, p *probe) {
	const callbacks, rounds = 100000, 8
	for round := range rounds {
		ch, _ := kc.NewChan[int](0)
		idle, _ := kc.NewChan[int](0)
		receivers := func() int { _, r := ch.Blocked(); return r }
		sel := round%2 == 1
		what := "Recv"
		if sel {
			what = "Select"
		}
		p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
			var werr error
			w := launchBlocked(p, j, what+" of the job to cancel", 1, receivers, func(c *kc.Job) error {
				if sel {
					_, werr = kc.Select(c, ch.RecvCase(nil), idle.RecvCase(nil))
				} else {
					_, werr = ch.Recv(c)
				}
				return werr
			})
			if w == nil {
				return nil
			}
			for range callbacks {
				w.OnCancel(func() {})
			}
			go w.Cancel(errCause)
			p.waitUntil("the job to be cancelled", w.IsCancelled)
			p.is("TrySend to the receiver being cancelled", ch.TrySend(1), kc.ErrWouldBlock)
			p.is(what+" of the cancelled job: Join", w.Join(j), kc.ErrCancelled, errCause)
			p.is(what+" of the cancelled job", werr, kc.ErrCancelled, errCause)
			p.state(what+" of the cancelled job", w, kc.Cancelled)
			var v int
			var rerr error
			r := launchBlocked(p, j, "next receiver", 1, receivers, func(c *kc.Job) error {
				v, rerr = ch.Recv(c)
				return nil
			})
			if r == nil {
				return nil
			}
			stop := p.deadman("Send to the next receiver", func() { r.Cancel(nil) })
			p.noErr("Send to the next receiver", ch.Send(j, 2))
			stop()
			r.Join(j)
			p.check(rerr == nil && v == 2, "next receiver: got (%d, %v); want (2, nil)", v, rerr)
			return nil
		}))
	}
}
