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
// blocks at least one Send or Recv: each channel reuses the wait node of
// its last finished blocked operation. Jobs and plain goroutines alike.
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
			echo := func(c *kc.Job) error {
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
			if withJobs {
				if _, err := j.Launch(echo); err != nil {
					return err
				}
			} else {
				go echo(nil)
			}
			defer ping.Close()
			bad := 0
			round := func() {
				if ping.Send(me, 1) != nil {
					bad++
				}
				if v, err := pong.Recv(me); err != nil || v != 2 {
					bad++
				}
			}
			for range 10 {
				round() // warm: both channels get their own nodes
			}
			if got := testing.AllocsPerRun(1000, round); got >= 0.01 {
				t.Errorf("jobs=%v: %.3f allocs per round trip; want 0", withJobs, got)
			}
			if bad != 0 {
				t.Errorf("jobs=%v: %d round trips failed", withJobs, bad)
			}
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
		if _, err := j.Launch(func(c *kc.Job) error {
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
		}); err != nil {
			return err
		}
		defer ping.Close()
		bad := 0
		round := func() {
			if ping.Send(j, 1) != nil {
				bad++
			}
			if v, err := pong.Recv(j); err != nil || v != 2 {
				bad++
			}
		}
		for range 10 {
			round()
		}
		if got := testing.AllocsPerRun(1000, round); got >= 0.01 {
			t.Errorf("%.3f allocs per round trip after a cancelled wait; want 0", got)
		}
		if bad != 0 {
			t.Errorf("%d round trips failed", bad)
		}
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
		bad := 0
		round := func() {
			if more.Send(j, 64) != nil {
				bad++
			}
			for range 64 {
				if _, err := ch.Recv(j); err != nil {
					bad++
				}
			}
		}
		for range 10 {
			round()
		}
		if got := testing.AllocsPerRun(200, round); got >= 0.01 {
			t.Errorf("%.3f allocs per 64 values; want 0", got)
		}
		if bad != 0 {
			t.Errorf("%d operations failed", bad)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
