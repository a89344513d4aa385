package conformance

import (
	"github.com/kcbench/kcbench/runtimes/kc"
)

// More channel cases (spec 05 "Channels"): the order in which blocked
// operations are served, the refill of a buffer from its blocked senders,
// the cause of CloseWithError reaching every operation, and a cancelled
// job's operations on ready channels.
func chanOrderCases() []Case {
	return []Case{
		mk("ChanBlockedSendersRefill", "05 Channels: async buffered, blocked senders first come first served", chanBlockedSendersRefill),
		mk("ChanBlockedReceiversFIFO", "05 Channels: async rendezvous, blocked receivers first come first served", chanBlockedReceiversFIFO),
		mk("ChanCloseWithErrorCause", "05 Channels: CLOSE wake, the close error", chanCloseWithErrorCause),
		mk("ChanCancelledJobCommitsNothing", "05 Channels: a cancelled job's operation does not commit", chanCancelledJobCommitsNothing),
	}
}

// launchBlocked launches body as a child of j and waits until the channel
// operation it makes is queued: until blocked() reports n wait nodes. It
// returns nil, after cancelling the child, if that does not happen.
func launchBlocked(p *probe, j *kc.Job, what string, n int, blocked func() int, body kc.Func) *kc.Job {
	c, err := j.Launch(body)
	if !p.job("Launch "+what, c, err) {
		return nil
	}
	if !p.waitUntil(what+" blocked", func() bool { return blocked() == n }) {
		c.Cancel(nil)
		return nil
	}
	return c
}

// A Recv from a full buffer refills it at once from the first blocked
// sender, which then returns; blocked senders are served in the order they
// blocked, and their values come after the buffered ones.
func chanBlockedSendersRefill(rt *kc.Runtime, p *probe) {
	ch, _ := kc.NewChan[int](1)
	senders := func() int { s, _ := ch.Blocked(); return s }
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		p.noErr("TrySend into room", ch.TrySend(1))
		var errA, errB error
		a := launchBlocked(p, j, "first sender", 1, senders, func(c *kc.Job) error { errA = ch.Send(c, 2); return nil })
		if a == nil {
			return nil
		}
		b := launchBlocked(p, j, "second sender", 2, senders, func(c *kc.Job) error { errB = ch.Send(c, 3); return nil })
		if b == nil {
			a.Cancel(nil)
			return nil
		}
		defer a.Cancel(nil) // no-ops once they returned; they end the case if a check failed
		defer b.Cancel(nil)
		v, err := ch.TryRecv()
		p.check(err == nil && v == 1, "TryRecv from the full buffer: got (%d, %v); want (1, nil)", v, err)
		if !p.waitUntil("first blocked sender to return once a Recv made room", func() bool { return a.State().Terminal() }) {
			return nil
		}
		p.noErr("first blocked sender's Send", errA)
		eq(p, "Len after a Recv from a full buffer with blocked senders", ch.Len(), 1)
		eq(p, "senders still blocked", senders(), 1)
		p.is("TrySend while the buffer is refilled and a sender waits", ch.TrySend(4), kc.ErrWouldBlock)
		v, err = ch.TryRecv()
		p.check(err == nil && v == 2, "second TryRecv: got (%d, %v); want (2, nil), the first blocked sender's value", v, err)
		if !p.waitUntil("second blocked sender to return", func() bool { return b.State().Terminal() }) {
			return nil
		}
		p.noErr("second blocked sender's Send", errB)
		v, err = ch.TryRecv()
		p.check(err == nil && v == 3, "third TryRecv: got (%d, %v); want (3, nil), the second blocked sender's value", v, err)
		_, err = ch.TryRecv()
		p.is("TryRecv once every value was received", err, kc.ErrWouldBlock)
		return nil
	}))
}

// Receivers blocked on a rendezvous channel get the values sent in the
// order in which they blocked.
func chanBlockedReceiversFIFO(rt *kc.Runtime, p *probe) {
	ch, _ := kc.NewChan[int](0)
	receivers := func() int { _, r := ch.Blocked(); return r }
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var got [3]int
		var errs [3]error
		var kids []*kc.Job
		defer func() {
			for _, k := range kids {
				k.Cancel(nil)
			}
		}()
		for i := range got {
			k := launchBlocked(p, j, "receiver", i+1, receivers, func(c *kc.Job) error {
				got[i], errs[i] = ch.Recv(c)
				return nil
			})
			if k == nil {
				return nil
			}
			kids = append(kids, k)
		}
		for i := range got {
			p.noErr("TrySend to a blocked receiver", ch.TrySend(10*(i+1)))
		}
		for i, k := range kids {
			k.Join(j)
			p.check(errs[i] == nil && got[i] == 10*(i+1),
				"receiver %d (in the order they blocked): got (%d, %v); want (%d, nil)", i, got[i], errs[i], 10*(i+1))
		}
		return nil
	}))
}

// CloseWithError's cause reaches every operation on the channel: the
// blocked Recv, Send and Selects it wakes (each Select reporting the case on
// that channel) and every later operation, blocking or not. A Select
// blocked on a channel that Close closes reports that case and ErrClosed.
func chanCloseWithErrorCause(rt *kc.Runtime, p *probe) {
	recvs, _ := kc.NewChan[int](0) // only receivers block on it
	sends, _ := kc.NewChan[int](0) // only senders block on it
	plain, _ := kc.NewChan[int](0) // closed with Close
	idle, _ := kc.NewChan[int](0)  // never ready
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var errs [5]error
		var idx [5]int
		bodies := []struct {
			what    string
			blocked func() int
			body    func(c *kc.Job)
		}{
			{"Recv", func() int { _, r := recvs.Blocked(); return r }, func(c *kc.Job) { _, errs[0] = recvs.Recv(c) }},
			{"Send", func() int { s, _ := sends.Blocked(); return s }, func(c *kc.Job) { errs[1] = sends.Send(c, 1) }},
			{"Select receiving", func() int { _, r := recvs.Blocked(); return r },
				func(c *kc.Job) { idx[2], errs[2] = kc.Select(c, idle.RecvCase(nil), recvs.RecvCase(nil)) }},
			{"Select sending", func() int { s, _ := sends.Blocked(); return s },
				func(c *kc.Job) { idx[3], errs[3] = kc.Select(c, idle.RecvCase(nil), sends.SendCase(2)) }},
			{"Select on a channel closed with Close", func() int { _, r := plain.Blocked(); return r },
				func(c *kc.Job) { idx[4], errs[4] = kc.Select(c, idle.RecvCase(nil), plain.RecvCase(nil)) }},
		}
		want := []int{1, 1, 2, 2, 1} // how many wait on the channel once the body blocked
		var kids []*kc.Job
		defer func() {
			for _, k := range kids {
				k.Cancel(nil)
			}
		}()
		for i, b := range bodies {
			k := launchBlocked(p, j, b.what, want[i], b.blocked, func(c *kc.Job) error { b.body(c); return nil })
			if k == nil {
				return nil
			}
			kids = append(kids, k)
		}
		p.noErr("CloseWithError of the receivers' channel", recvs.CloseWithError(errCause))
		p.noErr("CloseWithError of the senders' channel", sends.CloseWithError(errCause))
		p.noErr("Close", plain.Close())
		for _, k := range kids {
			k.Join(j)
		}
		for i, b := range bodies[:4] {
			p.is("blocked "+b.what+" woken by CloseWithError", errs[i], kc.ErrClosed, errCause)
		}
		p.is("blocked Select woken by Close", errs[4], kc.ErrClosed)
		for i := 2; i < 5; i++ {
			eq(p, "index of a blocked "+bodies[i].what+" woken by a close", idx[i], 1)
		}
		p.is("Send after CloseWithError", sends.Send(j, 3), kc.ErrClosed, errCause)
		p.is("TrySend after CloseWithError", sends.TrySend(3), kc.ErrClosed, errCause)
		_, err := recvs.TryRecv()
		p.is("TryRecv after CloseWithError", err, kc.ErrClosed, errCause)
		i, err := kc.Select(j, idle.RecvCase(nil), sends.SendCase(4))
		eq(p, "index of a Select sending on a channel closed with CloseWithError", i, 1)
		p.is("Select sending on a channel closed with CloseWithError", err, kc.ErrClosed, errCause)
		return nil
	}))
}

// A job that is already cancelled performs no channel operation, even one
// that could proceed at once: Send, Recv and Select return its
// cancellation error and leave the channels as they were.
func chanCancelledJobCommitsNothing(rt *kc.Runtime, p *probe) {
	room, _ := kc.NewChan[int](1) // a Send can proceed
	full, _ := kc.NewChan[int](1) // a Recv can proceed
	full.TrySend(7)
	c, err := inChild(rt, p, func(c *kc.Job) error {
		c.Cancel(errCause)
		p.is("Send by a cancelled job into room", room.Send(c, 1), kc.ErrCancelled, errCause)
		_, err := full.Recv(c)
		p.is("Recv by a cancelled job of a buffered value", err, kc.ErrCancelled, errCause)
		var v int
		i, err := kc.Select(c, room.SendCase(2), full.RecvCase(&v))
		eq(p, "Select by a cancelled job with ready cases: index", i, -1)
		p.is("Select by a cancelled job with ready cases", err, kc.ErrCancelled, errCause)
		return c.Check()
	})
	p.is("Join", err, kc.ErrCancelled, errCause)
	p.state("job", c, kc.Cancelled)
	eq(p, "values in the channel with room", room.Len(), 0)
	eq(p, "values in the full channel", full.Len(), 1)
}
