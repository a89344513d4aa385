package conformance

import (
	"errors"
	"sync/atomic"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// More Select cases (spec 05 "Select-style groups"): a send that meets a
// wait node of a Select already served, Selects racing senders and each
// other over the same channels, and a Select that nothing could ever end.
func selectMoreCases() []Case {
	return []Case{
		mk("SelectHandoffSkipsServedNode", "05 Select: a losing node is skipped, the next waiter served", selectHandoffSkipsServedNode),
		mk("SelectRacesSenders", "05 Select: channels locked in one order, no lost wake", selectRacesSenders),
		mk("SelectNoCaseTerminalJob", "05 Select: a wait nothing can end returns", selectNoCaseTerminalJob),
	}
}

// A Select with two cases on one channel puts two wait nodes on its queue;
// once a send has completed one of them, the other can no longer be served,
// and a second send must skip it and hand its value to the receiver queued
// behind it, not report that nobody waits. Repeated, because the Select
// takes its other node off the queue as soon as it runs again.
func selectHandoffSkipsServedNode(rt *kc.Runtime, p *probe) {
	const rounds = 100
	ch, _ := kc.NewChan[int](0)
	receivers := func() int { _, r := ch.Blocked(); return r }
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		for round := range rounds {
			var x, y, rv, idx int
			var serr, rerr error
			sel := launchBlocked(p, j, "Select with two cases on the channel", 2, receivers, func(c *kc.Job) error {
				idx, serr = kc.Select(c, ch.RecvCase(&x), ch.RecvCase(&y))
				return nil
			})
			if sel == nil {
				return nil
			}
			r := launchBlocked(p, j, "receiver behind the Select", 3, receivers, func(c *kc.Job) error {
				rv, rerr = ch.Recv(c)
				return nil
			})
			if r == nil {
				sel.Cancel(nil)
				return nil
			}
			p.noErr("TrySend to the blocked Select", ch.TrySend(1))
			ok := p.noErr("TrySend while a receiver waits behind the Select's other node", ch.TrySend(2))
			if !ok {
				r.Cancel(nil)
			}
			sel.Join(j)
			r.Join(j)
			good := p.check(serr == nil && x+y == 1 && (idx == 0 || idx == 1),
				"Select: got (%d, %v), values %d and %d; want index 0 or 1, no error, and the first value, 1", idx, serr, x, y)
			if ok {
				good = p.check(rerr == nil && rv == 2, "receiver behind the Select: got (%d, %v); want (2, nil)", rv, rerr) && good
			}
			if !eq(p, "receivers left", receivers(), 0) || !ok || !good {
				p.failf("round %d of %d failed", round+1, rounds)
				return nil
			}
		}
		return nil
	}))
}

// Selects from plain goroutines, over the same two rendezvous channels in
// opposite case orders, racing senders that block and unblock all the
// time: every value is received exactly once and nothing hangs. Two
// Selects that find nothing ready lock both channels at once, which must
// not deadlock whatever their case order; and a case that became ready
// between a Select's first look and its locked one is performed there,
// with its sender woken. Plain goroutines, so that a hang shows as values
// missing after patience, not as a runtime that cannot close.
func selectRacesSenders(_ *kc.Runtime, p *probe) {
	const perSender = 20000
	a, _ := kc.NewChan[int](0)
	b, _ := kc.NewChan[int](0)
	var received atomic.Int64
	var seen [2 * perSender]atomic.Int32
	var broken atomic.Bool // a goroutine stopped early; it has said why
	guard := func(what string) {
		if r := recover(); r != nil {
			p.failf("%s: got panic %v; want none", what, r)
			broken.Store(true)
		}
	}
	for s, ch := range []*kc.Chan[int]{a, b} {
		go func() {
			defer guard("Send from a plain goroutine")
			for k := range perSender {
				if err := ch.Send(nil, s*perSender+k); err != nil {
					p.failf("Send from a plain goroutine: got error %q; want nil", err)
					broken.Store(true)
					return
				}
			}
		}()
	}
	for order := range 2 {
		go func() {
			defer guard("Select from a plain goroutine")
			var v int
			cases := []kc.SelectCase{a.RecvCase(&v), b.RecvCase(&v)}
			if order == 1 {
				cases[0], cases[1] = cases[1], cases[0]
			}
			for {
				i, err := kc.Select(nil, cases...)
				if errors.Is(err, kc.ErrClosed) && received.Load() == 2*perSender {
					return // closed at the end
				}
				if err != nil || i < 0 || i > 1 {
					p.failf("Select from a plain goroutine: got (%d, %v); want index 0 or 1 and no error", i, err)
					broken.Store(true)
					return
				}
				seen[v].Add(1)
				received.Add(1)
			}
		}()
	}
	if !p.waitUntil("every value received (a lost wake or a deadlock of two Selects stops them)", func() bool {
		return received.Load() == 2*perSender || broken.Load()
	}) {
		p.failf("values received: got %d; want %d", received.Load(), 2*perSender)
		return // the goroutines may be stuck for good, on a channel's mutex too: leave them
	}
	a.Close()
	b.Close()
	eq(p, "values received", received.Load(), int64(2*perSender))
	for v := range seen {
		if n := seen[v].Load(); n > 1 {
			p.failf("value %d: got it %d times; want once", v, n)
			break
		}
	}
}

// A Select with no case on a non-nil channel waits for its job's
// cancellation; by a job that is already terminal and was not cancelled
// nothing can end that wait, so it returns -1 and ErrWouldBlock at once. By
// a terminal cancelled job it returns the cancellation error.
func selectNoCaseTerminalJob(rt *kc.Runtime, p *probe) {
	var done, cancelled *kc.Job
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var err error
		done, err = j.Launch(nop)
		if !p.job("Launch", done, err) {
			return nil
		}
		cancelled, err = j.Launch(func(c *kc.Job) error { c.Cancel(errCause); return c.Check() })
		p.job("Launch", cancelled, err)
		return nil
	}))
	if done == nil || cancelled == nil {
		return
	}
	var nilChan *kc.Chan[int]
	for _, tc := range []struct {
		what string
		job  *kc.Job
		want []error
	}{
		{"by a completed job", done, []error{kc.ErrWouldBlock}},
		{"by a cancelled job", cancelled, []error{kc.ErrCancelled, errCause}},
	} {
		var i int
		var err error
		var returned atomic.Bool
		go func() {
			i, err = kc.Select(tc.job, nilChan.RecvCase(nil))
			returned.Store(true)
		}()
		if !p.waitUntil("Select with no usable case "+tc.what+" to return", returned.Load) {
			return // it may never return: leave it
		}
		eq(p, "Select with no usable case "+tc.what+": index", i, -1)
		p.is("Select with no usable case "+tc.what, err, tc.want...)
	}
}
