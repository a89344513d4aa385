package kc_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

func ExampleChan() {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	rt.Run(context.Background(), func(j *kc.Job) error {
		ch, _ := kc.NewChan[string](0) // rendezvous: each Send waits for a Recv
		j.Launch(func(c *kc.Job) error {
			defer ch.Close()
			for _, w := range []string{"structured", "concurrency"} {
				if err := ch.Send(c, w); err != nil {
					return err
				}
			}
			return nil
		})
		for {
			w, err := ch.Recv(j)
			if errors.Is(err, kc.ErrClosed) {
				return nil
			}
			fmt.Println(w)
		}
	})
	// Output:
	// structured
	// concurrency
}

func ExampleSelect() {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	rt.Run(context.Background(), func(j *kc.Job) error {
		nums, _ := kc.NewChan[int](1)
		words, _ := kc.NewChan[string](1)
		words.Send(j, "hello")
		var n int
		var w string
		i, err := kc.Select(j, nums.RecvCase(&n), words.RecvCase(&w))
		fmt.Println(i, w, err)
		i, err = kc.TrySelect(nums.RecvCase(&n), words.RecvCase(&w))
		fmt.Println(i, err)
		return nil
	})
	// Output:
	// 1 hello <nil>
	// -1 kc: operation would block
}

func ExampleNewActor() {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	rt.Run(context.Background(), func(j *kc.Job) error {
		total := 0
		counter, _ := kc.NewActor(j, 8, func(_ *kc.Job, add int) error {
			total += add // only the actor touches total
			return nil
		})
		for i := 1; i <= 4; i++ {
			counter.Send(j, i)
		}
		counter.Close()       // handle what was sent, then end
		counter.Job().Join(j) // wait for that
		fmt.Println(total, counter.Job().State())
		return nil
	})
	// Output:
	// 10 Completed
}

func ExampleProduce() {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	rt.Run(context.Background(), func(j *kc.Job) error {
		squares, _ := kc.Produce(j, 4, func(p *kc.Job, out *kc.Chan[int]) error {
			for i := 1; i <= 3; i++ {
				if err := out.Send(p, i*i); err != nil {
					return err
				}
			}
			return nil // closes the channel
		})
		for {
			v, err := squares.Recv(j)
			if err != nil {
				fmt.Println(err)
				return nil
			}
			fmt.Println(v)
		}
	})
	// Output:
	// 1
	// 4
	// 9
	// kc: closed
}

// Many Selects over the same rendezvous channels, from jobs of which some
// are cancelled while they wait, and plain senders: every value is
// received exactly once and no wait node is left behind.
func TestSelectStress(t *testing.T) {
	const chans, senders, perSender, selectors = 3, 4, 400, 6
	rt := kc.New(goroutine.New())
	defer rt.Close()
	var cs [chans]*kc.Chan[int]
	for i := range cs {
		cs[i], _ = kc.NewChan[int](0)
	}
	var mu sync.Mutex
	seen := make(map[int]int)
	var got atomic.Int64
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		sel, err := j.Open()
		if err != nil {
			return err
		}
		var victims []*kc.Job
		for i := range selectors {
			s, err := sel.Launch(func(c *kc.Job) error {
				var v [chans]int
				for {
					idx, err := kc.Select(c, cs[0].RecvCase(&v[0]), cs[1].RecvCase(&v[1]), cs[2].RecvCase(&v[2]))
					if errors.Is(err, kc.ErrClosed) {
						return nil
					}
					if err != nil {
						return err
					}
					mu.Lock()
					seen[v[idx]]++
					mu.Unlock()
					got.Add(1)
				}
			})
			if err != nil {
				return err
			}
			if i%3 == 0 {
				victims = append(victims, s)
			}
		}
		var wg sync.WaitGroup
		for s := range senders {
			wg.Go(func() {
				for k := range perSender {
					if err := cs[k%chans].Send(nil, s*perSender+k); err != nil {
						t.Errorf("Send: %v", err)
						return
					}
					if s == 0 && k%150 == 75 && len(victims) > 0 {
						victims[0].Cancel(nil)
						victims = victims[1:]
					}
				}
			})
		}
		wg.Wait()
		for _, c := range cs {
			c.Close()
		}
		return sel.AwaitAll(j)
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if n := got.Load(); n != senders*perSender {
		t.Errorf("received %d values; want %d", n, senders*perSender)
	}
	for v, n := range seen {
		if n != 1 {
			t.Fatalf("value %d received %d times; want once", v, n)
		}
	}
	for i, c := range cs {
		if s, r := c.Blocked(); s+r != 0 {
			t.Errorf("channel %d: %d senders and %d receivers still queued; want none", i, s, r)
		}
	}
}

// Bad input gets errors, not panics.
func TestChanBadInput(t *testing.T) {
	if _, err := kc.NewChan[int](-1); !errors.Is(err, kc.ErrBadCapacity) {
		t.Errorf("NewChan(-1): %v; want ErrBadCapacity", err)
	}
	if _, err := kc.NewPool[int](1, nil, nil); !errors.Is(err, kc.ErrNilBody) {
		t.Errorf("NewPool with nil create: %v; want ErrNilBody", err)
	}
	var nilChan *kc.Chan[int]
	if err := nilChan.Send(nil, 1); !errors.Is(err, kc.ErrNilChan) {
		t.Errorf("Send on a nil *Chan: %v; want ErrNilChan", err)
	}
	if _, err := nilChan.Recv(nil); !errors.Is(err, kc.ErrNilChan) {
		t.Errorf("Recv on a nil *Chan: %v; want ErrNilChan", err)
	}
	if err := nilChan.TrySend(1); !errors.Is(err, kc.ErrNilChan) {
		t.Errorf("TrySend on a nil *Chan: %v; want ErrNilChan", err)
	}
	if _, err := nilChan.TryRecv(); !errors.Is(err, kc.ErrNilChan) {
		t.Errorf("TryRecv on a nil *Chan: %v; want ErrNilChan", err)
	}
	if err := nilChan.Close(); !errors.Is(err, kc.ErrNilChan) {
		t.Errorf("Close of a nil *Chan: %v; want ErrNilChan", err)
	}
	if nilChan.Len() != 0 || nilChan.Cap() != 0 {
		t.Errorf("Len, Cap of a nil *Chan: %d, %d; want 0, 0", nilChan.Len(), nilChan.Cap())
	}
	ch, _ := kc.NewChan[int](0)
	if err := ch.CloseWithError(nil); err != nil {
		t.Errorf("CloseWithError(nil): %v; want a plain close", err)
	}
	if _, err := ch.Recv(nil); err != kc.ErrClosed {
		t.Errorf("Recv after CloseWithError(nil): %v; want ErrClosed itself", err)
	}
	rt := kc.New(goroutine.New())
	defer rt.Close()
	rt.Run(context.Background(), func(j *kc.Job) error {
		if _, err := kc.Produce[int](j, 0, nil); !errors.Is(err, kc.ErrNilBody) {
			t.Errorf("Produce(nil): %v; want ErrNilBody", err)
		}
		if _, err := kc.Produce(j, -2, func(*kc.Job, *kc.Chan[int]) error { return nil }); !errors.Is(err, kc.ErrBadCapacity) {
			t.Errorf("Produce(-2): %v; want ErrBadCapacity", err)
		}
		return nil
	})
}
