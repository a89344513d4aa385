package conformance

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// Channels (spec 05 "Channels"): blocking through the executor's parking,
// handoff versus cancellation, close, and the no-lost-value rule.
func chanCases() []Case {
	return []Case{
		mk("ChanRendezvous", "05 Channels: async rendezvous", chanRendezvous),
		mk("ChanBufferedFIFO", "05 Channels: async buffered", chanBufferedFIFO),
		mk("ChanCloseWakesAll", "05 Channels: CLOSE wake", chanCloseWakesAll),
		mk("ChanCancelBlockedRecv", "05 Channels: CANCEL wake, no node left linked", chanCancelBlockedRecv),
		mk("ChanNoLostValue", "05 Channels: handoff vs cancel, exactly once", chanNoLostValue),
		mk("ChanBlockedBeyondWorkers", "05 Channels: fiber context rule (park, never block a worker)", chanBlockedBeyondWorkers),
	}
}

// A Send on an unbuffered channel waits, parked, until a Recv takes the value.
func chanRendezvous(rt *kc.Runtime, p *probe) {
	ch, err := kc.NewChan[int](0)
	if !p.noErr("NewChan(0)", err) {
		return
	}
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		sender, err := j.Launch(func(c *kc.Job) error { return ch.Send(c, 7) })
		if !p.job("Launch sender", sender, err) {
			return nil
		}
		if !p.waitUntil("sender blocked in Send", func() bool { s, _ := ch.Blocked(); return s == 1 }) {
			sender.Cancel(nil)
			return nil
		}
		p.state("sender while no receiver", sender, kc.Active)
		v, err := ch.Recv(j)
		p.noErr("Recv", err)
		eq(p, "Recv value", v, 7)
		p.noErr("sender's Send", sender.Join(j))
		eq(p, "Len of an unbuffered channel", ch.Len(), 0)
		return nil
	}))
}

// A buffered channel keeps order, refuses a full send and an empty receive
// without blocking, and after Close drains, then reports ErrClosed.
func chanBufferedFIFO(_ *kc.Runtime, p *probe) {
	_, err := kc.NewChan[int](-1)
	p.is("NewChan(-1)", err, kc.ErrBadCapacity)
	ch, err := kc.NewChan[int](3)
	if !p.noErr("NewChan(3)", err) {
		return
	}
	eq(p, "Cap", ch.Cap(), 3)
	for i := 1; i <= 3; i++ {
		p.noErr("TrySend into room", ch.TrySend(i))
	}
	p.is("TrySend when full", ch.TrySend(4), kc.ErrWouldBlock)
	eq(p, "Len when full", ch.Len(), 3)
	v, err := ch.TryRecv()
	p.noErr("TryRecv", err)
	eq(p, "first value", v, 1)
	p.noErr("TrySend after a Recv made room", ch.TrySend(4))
	p.noErr("Close", ch.Close())
	p.is("Close again", ch.Close(), kc.ErrClosed)
	p.is("TrySend after Close", ch.TrySend(5), kc.ErrClosed)
	p.is("Send after Close", ch.Send(nil, 5), kc.ErrClosed)
	for _, want := range []int{2, 3, 4} {
		v, err := ch.Recv(nil)
		p.noErr("Recv of a buffered value after Close", err)
		eq(p, "value after Close", v, want)
	}
	_, err = ch.TryRecv()
	p.is("TryRecv when closed and drained", err, kc.ErrClosed)
	empty, _ := kc.NewChan[int](1)
	_, err = empty.TryRecv()
	p.is("TryRecv of an empty open channel", err, kc.ErrWouldBlock)
	cause, _ := kc.NewChan[int](0)
	cause.CloseWithError(errCause)
	_, err = cause.Recv(nil)
	p.is("Recv after CloseWithError", err, kc.ErrClosed, errCause)
}

// Close wakes every blocked receiver and sender with ErrClosed.
func chanCloseWakesAll(rt *kc.Runtime, p *probe) {
	recvs, _ := kc.NewChan[int](0)
	sends, _ := kc.NewChan[int](0)
	const n = 5
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var got [2 * n]error
		var kids []*kc.Job
		for i := range n {
			r, err := j.Launch(func(c *kc.Job) error { _, got[i] = recvs.Recv(c); return nil })
			s, err2 := j.Launch(func(c *kc.Job) error { got[n+i] = sends.Send(c, i); return nil })
			if !p.job("Launch receiver", r, err) || !p.job("Launch sender", s, err2) {
				j.Cancel(nil)
				return nil
			}
			kids = append(kids, r, s)
		}
		p.waitUntil("every receiver and sender blocked", func() bool {
			_, r := recvs.Blocked()
			s, _ := sends.Blocked()
			return r == n && s == n
		})
		p.noErr("Close receivers' channel", recvs.Close())
		p.noErr("Close senders' channel", sends.Close())
		for _, k := range kids {
			k.Join(j)
		}
		for _, err := range got {
			p.is("blocked operation woken by Close", err, kc.ErrClosed)
		}
		return nil
	}))
}

// A cancelled receiver leaves the queue: no value is handed to it later.
func chanCancelBlockedRecv(rt *kc.Runtime, p *probe) {
	ch, _ := kc.NewChan[int](0)
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var recvErr error
		r, err := j.Launch(func(c *kc.Job) error { _, recvErr = ch.Recv(c); return recvErr })
		if !p.job("Launch receiver", r, err) {
			return nil
		}
		p.waitUntil("receiver blocked", func() bool { _, n := ch.Blocked(); return n == 1 })
		r.Cancel(errCause)
		r.Join(j)
		p.is("Recv of a cancelled receiver", recvErr, kc.ErrCancelled, errCause)
		p.state("cancelled receiver", r, kc.Cancelled)
		_, n := ch.Blocked()
		eq(p, "receivers left on the queue", n, 0)
		p.is("TrySend with no receiver left", ch.TrySend(1), kc.ErrWouldBlock)
		var pre error
		pj, err := j.Launch(func(c *kc.Job) error {
			c.Cancel(nil)
			_, pre = ch.Recv(c)
			return nil
		})
		if p.job("Launch", pj, err) {
			pj.Join(j)
			p.is("Recv by an already cancelled job", pre, kc.ErrCancelled)
		}
		return nil
	}))
}

// Values sent are received exactly once, even while receivers are being
// cancelled in the middle of handoffs.
func chanNoLostValue(rt *kc.Runtime, p *probe) {
	const producers, perProducer, consumers = 4, 500, 8
	ch, _ := kc.NewChan[int](2)
	var mu sync.Mutex
	seen := make(map[int]int)
	var received atomic.Int64
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		cons, err := j.Open()
		if !p.job("Open", cons, err) {
			return nil
		}
		var victims []*kc.Job
		for i := range consumers {
			c, err := cons.Launch(func(c *kc.Job) error {
				for {
					v, err := ch.Recv(c)
					if errors.Is(err, kc.ErrClosed) {
						return nil // drained
					}
					if err != nil {
						return err
					}
					mu.Lock()
					seen[v]++
					mu.Unlock()
					received.Add(1)
				}
			})
			if !p.job("Launch consumer", c, err) {
				cons.Cancel(nil)
				return nil
			}
			if i%2 == 0 {
				victims = append(victims, c)
			}
		}
		err = j.Scope(func(s *kc.Job) error {
			for pi := range producers {
				s.Launch(func(c *kc.Job) error {
					for k := range perProducer {
						if err := ch.Send(c, pi*perProducer+k); err != nil {
							return err
						}
						if pi == 0 && k%100 == 50 && len(victims) > 0 {
							victims[0].Cancel(nil)
							victims = victims[1:]
						}
					}
					return nil
				})
			}
			return nil
		})
		p.noErr("producers' Scope", err)
		ch.Close()
		p.noErr("consumers' nursery (some cancelled)", cons.AwaitAll(j))
		return nil
	}))
	eq(p, "values received", received.Load(), int64(producers*perProducer))
	for v, n := range seen {
		if n != 1 {
			p.failf("value %d: got it %d times; want once", v, n)
			break
		}
	}
}

// More jobs blocked on a channel than a backend has workers still get
// their values: a blocked channel operation parks, it does not hold a
// worker hostage.
func chanBlockedBeyondWorkers(rt *kc.Runtime, p *probe) {
	const n = 256
	ch, _ := kc.NewChan[int](0)
	var sum atomic.Int64
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		return j.Scope(func(s *kc.Job) error {
			for range n {
				if _, err := s.Launch(func(c *kc.Job) error {
					v, err := ch.Recv(c)
					sum.Add(int64(v))
					return err
				}); err != nil {
					return err
				}
			}
			for i := 1; i <= n; i++ {
				if err := ch.Send(s, i); err != nil {
					return err
				}
			}
			return nil
		})
	}))
	eq(p, "sum of the values received", sum.Load(), int64(n*(n+1)/2))
}
