package conformance

import (
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Select (spec 05 "Select-style groups"): one winner, chosen before any
// member is woken, and every losing wait node deregistered before Select
// returns.
func selectCases() []Case {
	return []Case{
		mk("SelectReady", "05 Select: a ready case is taken without parking", selectReady),
		mk("SelectWakeAndCleanup", "05 Select cleanup rule: losing nodes deregistered", selectWakeAndCleanup),
		mk("SelectSendCase", "05 Select: send arm handoff", selectSendCase),
		mk("SelectCancel", "05 Select: CANCEL wake, no node left linked", selectCancel),
		mk("SelectRepeatedCase", "05 Select: one wait node per case", selectRepeatedCase),
	}
}

func selectReady(_ *kc.Runtime, p *probe) {
	a, _ := kc.NewChan[int](1)
	b, _ := kc.NewChan[string](1)
	var ai int
	var bs string
	i, err := kc.TrySelect(a.RecvCase(&ai), b.RecvCase(&bs))
	eq(p, "TrySelect with nothing ready: index", i, -1)
	p.is("TrySelect with nothing ready", err, kc.ErrWouldBlock)
	p.noErr("TrySend", b.TrySend("x"))
	i, err = kc.Select(nil, a.RecvCase(&ai), b.RecvCase(&bs))
	p.noErr("Select with one ready case", err)
	eq(p, "Select index", i, 1)
	eq(p, "received value", bs, "x")
	var nilChan *kc.Chan[int]
	p.noErr("Close", a.Close())
	i, err = kc.Select(nil, nilChan.RecvCase(nil), a.RecvCase(&ai))
	eq(p, "Select of a closed channel (and a nil one): index", i, 1)
	p.is("Select of a closed channel", err, kc.ErrClosed)
	i, err = kc.Select(nil)
	eq(p, "Select with no cases and no job: index", i, -1)
	p.is("Select with no cases and no job", err, kc.ErrWouldBlock)
}

// A Select blocked on two channels is woken by a send on the second; its
// node on the first is gone when Select returns.
func selectWakeAndCleanup(rt *kc.Runtime, p *probe) {
	a, _ := kc.NewChan[int](0)
	b, _ := kc.NewChan[int](0)
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var idx, got int
		var serr error
		s, err := j.Launch(func(c *kc.Job) error {
			var x, y int
			idx, serr = kc.Select(c, a.RecvCase(&x), b.RecvCase(&y))
			got = x + y
			return nil
		})
		if !p.job("Launch selector", s, err) {
			return nil
		}
		if !p.waitUntil("Select blocked on both channels", func() bool {
			_, ra := a.Blocked()
			_, rb := b.Blocked()
			return ra == 1 && rb == 1
		}) {
			s.Cancel(nil)
			return nil
		}
		p.noErr("Send on the second channel", b.Send(j, 42))
		s.Join(j)
		p.noErr("Select", serr)
		eq(p, "Select index", idx, 1)
		eq(p, "value", got, 42)
		_, ra := a.Blocked()
		eq(p, "Select's receivers left on the losing channel", ra, 0)
		p.is("TrySend on the losing channel", a.TrySend(1), kc.ErrWouldBlock)
		return nil
	}))
}

// A send arm hands its value to a receiver that arrives later.
func selectSendCase(rt *kc.Runtime, p *probe) {
	a, _ := kc.NewChan[int](0)
	b, _ := kc.NewChan[int](0)
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var idx int
		var serr error
		s, err := j.Launch(func(c *kc.Job) error {
			idx, serr = kc.Select(c, a.SendCase(1), b.SendCase(2))
			return nil
		})
		if !p.job("Launch selector", s, err) {
			return nil
		}
		if !p.waitUntil("Select blocked", func() bool { n, _ := a.Blocked(); return n == 1 }) {
			s.Cancel(nil)
			return nil
		}
		v, err := a.Recv(j)
		p.noErr("Recv", err)
		eq(p, "value from the send arm", v, 1)
		s.Join(j)
		p.noErr("Select", serr)
		eq(p, "Select index", idx, 0)
		n, _ := b.Blocked()
		eq(p, "senders left on the losing channel", n, 0)
		return nil
	}))
}

// Cancelling the job of a blocked Select ends it with the cancellation
// error and no case performed.
func selectCancel(rt *kc.Runtime, p *probe) {
	a, _ := kc.NewChan[int](0)
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var idx int
		var serr error
		s, err := j.Launch(func(c *kc.Job) error {
			idx, serr = kc.Select(c, a.RecvCase(nil), a.SendCase(5))
			return nil
		})
		if !p.job("Launch selector", s, err) {
			return nil
		}
		p.waitUntil("Select blocked", func() bool { n, r := a.Blocked(); return n == 1 && r == 1 })
		s.Cancel(errCause)
		s.Join(j)
		eq(p, "Select index after cancel", idx, -1)
		p.is("Select after cancel", serr, kc.ErrCancelled, errCause)
		n, r := a.Blocked()
		eq(p, "nodes left on the channel (senders+receivers)", n+r, 0)
		return nil
	}))
}

// A case value given twice to one Select (or TrySelect) is refused with
// ErrRepeatedCase, whether or not a case is ready, and nothing is left on
// the channel's queues; distinct cases on one channel are allowed.
func selectRepeatedCase(rt *kc.Runtime, p *probe) {
	a, _ := kc.NewChan[int](1)
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		rc := a.RecvCase(nil)
		stop := p.deadman("Select with a repeated case", func() { j.Cancel(nil) })
		i, err := kc.Select(j, rc, rc)
		stop()
		eq(p, "Select with a repeated case on an empty channel: index", i, -1)
		p.is("Select with a repeated case on an empty channel", err, kc.ErrRepeatedCase)
		p.isNot("Select with a repeated case", err, kc.ErrCancelled, kc.ErrClosed, kc.ErrWouldBlock)
		s, r := a.Blocked()
		eq(p, "wait nodes left on the channel (senders+receivers)", s+r, 0)
		p.noErr("TrySend", a.TrySend(7))
		i, err = kc.Select(j, a.SendCase(1), rc, rc)
		eq(p, "Select with a repeated case that is ready: index", i, -1)
		p.is("Select with a repeated case that is ready", err, kc.ErrRepeatedCase)
		i, err = kc.TrySelect(rc, a.SendCase(1), rc)
		eq(p, "TrySelect with a repeated case: index", i, -1)
		p.is("TrySelect with a repeated case", err, kc.ErrRepeatedCase)
		eq(p, "values left after the refused Selects", a.Len(), 1)
		var v int
		i, err = kc.Select(j, a.RecvCase(&v), a.RecvCase(&v))
		p.noErr("Select with two distinct cases on one channel", err)
		p.check(i == 0 || i == 1, "Select with two distinct cases: got index %d; want 0 or 1", i)
		eq(p, "value received", v, 7)
		s, r = a.Blocked()
		eq(p, "wait nodes left at the end (senders+receivers)", s+r, 0)
		return nil
	}))
}
