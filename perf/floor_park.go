package perf

import (
	"fmt"
	"iter"
	"time"
)

// The floors of the workloads whose jobs park. A parked job is a Go
// function in progress, so it needs a stack of its own; the cheapest way
// Go has to leave such a function and come back to it is a coroutine
// (iter.Pull): resume switches to it directly on the resumer's thread,
// with no trip through the scheduler's run queues and no wake-up of
// another thread, and its next park switches back. A goroutine parked on
// a channel or a WaitGroup costs more to wake. So a parked job is a
// coroutine here, pooled where a runtime could keep stacks for reuse.

// coro is a function parked in a coroutine. resume runs it until it
// parks again or returns (then resume reports false); stop ends it: the
// park it is in returns false and it must return. A coro is used by one
// goroutine at a time.
type coro struct {
	resume func() (struct{}, bool)
	stop   func()
}

// newCoro returns body as a coroutine that has not started: the first
// resume runs it up to its first park.
func newCoro(body func(park func() bool)) *coro {
	next, stop := iter.Pull(func(yield func(struct{}) bool) {
		body(func() bool { return yield(struct{}{}) })
	})
	return &coro{resume: next, stop: stop}
}

// floorCancelFanout: the children parked in their sleep are resumed;
// each runs the rest of its body (the return from the cancelled sleep),
// publishes its completion with one atomic add and goes back to its
// pool. Timed is the busiest worker's share, as in floorFanOut: ceil(n/P)
// children resumed one after the other on one goroutine, P = GOMAXPROCS.
// Setup and teardown are untimed, as in the workload; ns/child is per
// child of the whole op, as there.
func floorCancelFanout(t timer, n, ops int) error {
	s := newFloorState()
	share := busiestShare(n)
	parked := make([]*coro, share)
	t.StopTimer()
	t.ResetTimer()
	for range ops {
		for i := range parked {
			j := s.newJob()
			parked[i] = newCoro(func(park func() bool) {
				if !park() { // parked in the sleep
					return
				}
				j.state.Add(1) // the rest of the body: the job completes
				s.jobs++
				park() // back to the pool
			})
			parked[i].resume()
		}
		t.StartTimer()
		for _, c := range parked {
			c.resume()
		}
		t.StopTimer()
		for _, c := range parked {
			c.stop()
		}
	}
	if s.jobs != int64(ops*share) {
		return fmt.Errorf("%d children resumed, want %d", s.jobs, ops*share)
	}
	t.ReportMetric(float64(t.Elapsed().Nanoseconds())/float64(ops*n), "ns/child")
	return nil
}

// floorWaitersStorm: per op, a pending result (a job record) and the
// busiest worker's share of the n awaiters, ceil(n/P) of them, as in
// floorFanOut: each launched (a job record through the ring) on a pooled
// coroutine, where it registers on the result's waiter list and parks;
// then the result completes and every waiter is resumed, reads the value
// and publishes its completion. All on one goroutine.
func floorWaitersStorm(t timer, n, ops int) error {
	s := newFloorState()
	share := busiestShare(n)
	var (
		event *floorJob // the pending result of the current op
		start *floorJob // the awaiter being started
		bad   int       // awaits that saw a wrong value
		pool  = make([]*coro, share)
	)
	for i := range pool {
		pool[i] = newCoro(func(park func() bool) {
			for park() { // idle in the pool until started
				w, e := start, event
				if e.state.Load() == 0 {
					w.next, e.next = e.next, w // register as a waiter
					if !park() {
						return
					}
				}
				if e.v != 1 {
					bad++
				}
				w.state.Add(1) // the awaiter's job completes
				s.jobs++
			}
		})
		pool[i].resume()
	}
	defer func() {
		for _, c := range pool {
			c.stop()
		}
	}()
	t.ResetTimer()
	for range ops {
		event = s.newJob()
		for i := range share {
			w := s.newJob()
			w.v = i
			s.runq.push(w)
			start = s.runq.pop()
			pool[i].resume()
		}
		event.v = 1
		event.state.Add(1)
		for w := event.next; w != nil; w = w.next {
			pool[w.v].resume()
		}
	}
	t.StopTimer()
	if got := s.jobs; got != int64(share*ops) || bad != 0 {
		return fmt.Errorf("%d awaits returned (%d with a wrong value), want %d", got, bad, share*ops)
	}
	return nil
}

// floorChanPingPong: the partner is a coroutine; one op hands it the
// value (a switch to it), it adds one and hands it back (a switch back).
func floorChanPingPong(t timer, _, ops int) error {
	ball := 0
	c := newCoro(func(park func() bool) {
		for park() {
			ball++
		}
	})
	defer c.stop()
	c.resume()
	t.ResetTimer()
	for i := range ops {
		ball = i
		c.resume()
		if ball != i+1 {
			return fmt.Errorf("pong: %d; want %d", ball, i+1)
		}
	}
	t.StopTimer()
	return nil
}

// floorBuffer is a channel buffer without a lock: the least a buffered
// channel holds, for producers and a consumer that take turns.
type floorBuffer struct {
	buf        [ChanBufferedCap]int
	head, tail int
	done       bool // the producer has sent its last value
}

func (b *floorBuffer) full() bool  { return b.tail-b.head == len(b.buf) }
func (b *floorBuffer) empty() bool { return b.tail == b.head }
func (b *floorBuffer) put(v int)   { b.buf[b.tail%len(b.buf)] = v; b.tail++ }
func (b *floorBuffer) take() int   { v := b.buf[b.head%len(b.buf)]; b.head++; return v }

// producer returns a coroutine that puts each value of seq into b,
// parking while b is full, and marks b done at the end.
func (b *floorBuffer) producer(first, step, end int) *coro {
	return newCoro(func(park func() bool) {
		for i := first; i < end; i += step {
			if b.full() && !park() {
				return
			}
			b.put(i)
		}
		b.done = true
	})
}

// floorChanBuffered: the sender is a coroutine that fills the buffer and
// parks when it is full; the receiver empties it and resumes the sender
// when it is empty: per value a store and a load, per ChanBufferedCap
// values one round trip of switches.
func floorChanBuffered(t timer, _, ops int) error {
	var b floorBuffer
	prod := b.producer(0, 1, ops)
	defer prod.stop()
	t.ResetTimer()
	sum := 0
	for {
		if b.empty() {
			if b.done {
				break
			}
			prod.resume()
			continue
		}
		sum += b.take()
	}
	t.StopTimer()
	if want := ops * (ops - 1) / 2; sum != want {
		return fmt.Errorf("received sum %d; want %d", sum, want)
	}
	return nil
}

// floorSelect: two producer coroutines feed a buffer each; one op draws a
// pseudo-random bit (a select chooses among ready cases at random), takes
// a value from the first ready buffer in that order, and resumes the
// producers when both are empty.
func floorSelect(t timer, _, ops int) error {
	var bufs [2]floorBuffer
	var prods [2]*coro
	for k := range prods {
		prods[k] = bufs[k].producer(k, 2, ops)
		defer prods[k].stop()
	}
	rnd := uint64(0x9e3779b97f4a7c15)
	t.ResetTimer()
	for range ops {
		for {
			rnd ^= rnd << 13
			rnd ^= rnd >> 7
			rnd ^= rnd << 17
			i := int(rnd & 1)
			if !bufs[i].empty() {
				bufs[i].take()
				break
			}
			if !bufs[1-i].empty() {
				bufs[1-i].take()
				break
			}
			if bufs[0].done && bufs[1].done {
				return fmt.Errorf("both producers ended before the select")
			}
			for k := range prods {
				if !bufs[k].done {
					prods[k].resume()
				}
			}
		}
	}
	t.StopTimer()
	if !bufs[0].empty() || !bufs[1].empty() {
		return fmt.Errorf("values left after %d selects", ops)
	}
	return nil
}

// floorSleepWake waits for the delay itself, reading the monotonic
// clock until SleepWakeDelay has passed: nothing that sleeps may wake
// sooner. It does not park, and parking (arming a timer, giving up the
// worker, being woken) only adds to it; time.Sleep is not a floor, as a
// runtime that hands the wake-up to a spinning worker can beat it.
func floorSleepWake(t timer, _, ops int) error {
	t.ResetTimer()
	for range ops {
		for t0 := time.Now(); time.Since(t0) < SleepWakeDelay; {
		}
	}
	t.StopTimer()
	return nil
}
