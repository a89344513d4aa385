package kc_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestChanPingPongNoAllocs checks that a warm ping-pong over two rendezvous
// channels allocates nothing per round trip, although every round trip
// blocks at least one Send or Recv: each channel reuses its own wait
// nodes (Chan.spare). Jobs and plain goroutines alike.
func TestChanPingPongNoAllocs(t *testing.T) {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	for _, withJobs := range []bool{false, true} {
		err := rt.Run(context.Background(), func(j *kc.Job) error {
			ping, _ := kc.NewChan[int](0)
			pong, _ := kc.NewChan[int](0)
			me := j
			if !withJobs {
				me = nil
			}
			if withJobs {
				if _, err := j.Launch(echo(ping, pong)); err != nil {
					return err
				}
			} else {
				go echo(ping, pong)(nil)
			}
			defer ping.Close()
			expectNoAllocs(t, fmt.Sprintf("jobs=%v: round trip", withJobs), 1000, pingRound(me, ping, pong))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestChanNoAllocsAfterCancelledWait checks that a channel whose blocked
// Recv was cancelled after it registered its cancel hook (so its wait node
// may still be touched by the cancel walk and is not reused) gets a wait
// node of its own again: a warm ping-pong over it then allocates nothing.
func TestChanNoAllocsAfterCancelledWait(t *testing.T) {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		ping, _ := kc.NewChan[int](0)
		pong, _ := kc.NewChan[int](0)
		waiter, err := j.Launch(func(c *kc.Job) error {
			_, err := ping.Recv(c)
			return err
		})
		if err != nil {
			return err
		}
		for {
			if _, r := ping.Blocked(); r == 1 {
				break
			}
			runtime.Gosched()
		}
		time.Sleep(10 * time.Millisecond) // past the spin: the Recv registers its hook
		waiter.Cancel(nil)
		if err := waiter.Join(j); !errors.Is(err, kc.ErrCancelled) {
			return fmt.Errorf("cancelled Recv: %v; want ErrCancelled", err)
		}
		if _, err := j.Launch(echo(ping, pong)); err != nil {
			return err
		}
		defer ping.Close()
		expectNoAllocs(t, "round trip after a cancelled wait", 1000, pingRound(j, ping, pong))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestChanBufferedNoAllocs checks that a warm producer and consumer over a
// buffered channel allocate nothing, although the producer blocks on the
// full buffer while the consumer, just woken from the empty one, still
// holds its wait node: the channel keeps a wait node for each.
func TestChanBufferedNoAllocs(t *testing.T) {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		ch, _ := kc.NewChan[int](4)
		more, _ := kc.NewChan[int](0)
		if _, err := j.Launch(func(c *kc.Job) error {
			for {
				n, err := more.Recv(c)
				if errors.Is(err, kc.ErrClosed) {
					return nil
				}
				if err != nil {
					return err
				}
				for i := range n {
					if err := ch.Send(c, i); err != nil {
						return err
					}
				}
			}
		}); err != nil {
			return err
		}
		defer more.Close()
		expectNoAllocs(t, "64 values", 200, func() error {
			if err := more.Send(j, 64); err != nil {
				return err
			}
			for range 64 {
				if _, err := ch.Recv(j); err != nil {
					return err
				}
			}
			return nil
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// echo returns a body that answers every value v received on ping with
// v+1 on pong, until ping is closed.
func echo(ping, pong *kc.Chan[int]) kc.Func {
	return func(c *kc.Job) error {
		for {
			v, err := ping.Recv(c)
			if errors.Is(err, kc.ErrClosed) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := pong.Send(c, v+1); err != nil {
				return err
			}
		}
	}
}

// pingRound returns one round trip by me (nil: a plain goroutine) to an
// echo over ping and pong.
func pingRound(me *kc.Job, ping, pong *kc.Chan[int]) func() error {
	return func() error {
		if err := ping.Send(me, 1); err != nil {
			return err
		}
		if v, err := pong.Recv(me); err != nil || v != 2 {
			return fmt.Errorf("pong: %d, %v; want 2", v, err)
		}
		return nil
	}
}

// expectNoAllocs runs op 10 times to warm it up, then runs times under
// testing.AllocsPerRun, and reports an error if op allocated or failed.
// It calls no t.Fatal, so a job body may call it.
func expectNoAllocs(t *testing.T, what string, runs int, op func() error) {
	t.Helper()
	var first error
	call := func() {
		if err := op(); err != nil && first == nil {
			first = err
		}
	}
	for range 10 {
		call() // warm: the channels get their own wait nodes
	}
	if got := testing.AllocsPerRun(runs, call); got >= 0.01 {
		t.Errorf("%s: %.3f allocs; want 0", what, got)
	}
	if first != nil {
		t.Errorf("%s: %v", what, first)
	}
}
