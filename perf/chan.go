package perf

import (
	"errors"
	"fmt"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// The channel workloads: kc.Chan and kc.Select against Go's own channels
// and select (peer-go), which are the bar a cancellation-aware channel has
// to be measured against.

// ChanBufferedCap is the capacity of the channel of one ChanBuffered run.
const ChanBufferedCap = 64

// kcChanPingPong: the root and one child bounce a value over two
// rendezvous channels; one op is a round trip (two handoffs, two parks).
func kcChanPingPong(t timer, backend string, _, ops int) error {
	return inRuntime(backend, func(j *kc.Job) error {
		ping, _ := kc.NewChan[int](0)
		pong, _ := kc.NewChan[int](0)
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
		t.ResetTimer()
		for i := range ops {
			if err := ping.Send(j, i); err != nil {
				return err
			}
			if v, err := pong.Recv(j); err != nil || v != i+1 {
				return fmt.Errorf("pong: %d, %v; want %d", v, err, i+1)
			}
		}
		t.StopTimer()
		ping.Close()
		return nil
	})
}

func goChanPingPong(t timer, _, ops int) error {
	ping, pong := make(chan int), make(chan int)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for v := range ping {
			pong <- v + 1
		}
	}()
	defer func() { close(ping); <-done }() // the partner leaves no goroutine behind
	ping <- -1                             // the partner is running before the timer starts
	<-pong
	t.ResetTimer()
	for i := range ops {
		ping <- i
		if v := <-pong; v != i+1 {
			return fmt.Errorf("pong: %d; want %d", v, i+1)
		}
	}
	t.StopTimer()
	return nil
}

// kcChanBuffered: a child sends ops values through a channel of capacity
// ChanBufferedCap to the root; one op is one value through.
func kcChanBuffered(t timer, backend string, _, ops int) error {
	return inRuntime(backend, func(j *kc.Job) error {
		ch, _ := kc.NewChan[int](ChanBufferedCap)
		t.ResetTimer()
		if _, err := j.Launch(func(c *kc.Job) error {
			for i := range ops {
				if err := ch.Send(c, i); err != nil {
					return err
				}
			}
			return ch.Close()
		}); err != nil {
			return err
		}
		sum := 0
		for {
			v, err := ch.Recv(j)
			if errors.Is(err, kc.ErrClosed) {
				break
			}
			if err != nil {
				return err
			}
			sum += v
		}
		t.StopTimer()
		if want := ops * (ops - 1) / 2; sum != want {
			return fmt.Errorf("received sum %d; want %d", sum, want)
		}
		return nil
	})
}

func goChanBuffered(t timer, _, ops int) error {
	ch := make(chan int, ChanBufferedCap)
	t.ResetTimer()
	go func() {
		for i := range ops {
			ch <- i
		}
		close(ch)
	}()
	sum := 0
	for v := range ch {
		sum += v
	}
	t.StopTimer()
	if want := ops * (ops - 1) / 2; sum != want {
		return fmt.Errorf("received sum %d; want %d", sum, want)
	}
	return nil
}

// kcSelect: two children each feed a buffered channel; the root receives
// every value with a Select over both. One op is one Select.
func kcSelect(t timer, backend string, _, ops int) error {
	return inRuntime(backend, func(j *kc.Job) error {
		var chans [2]*kc.Chan[int]
		for i := range chans {
			chans[i], _ = kc.NewChan[int](ChanBufferedCap)
		}
		t.ResetTimer()
		for k, ch := range chans {
			if _, err := j.Launch(func(c *kc.Job) error {
				for i := k; i < ops; i += 2 {
					if err := ch.Send(c, 1); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				return err
			}
		}
		var a, b int
		cases := []kc.SelectCase{chans[0].RecvCase(&a), chans[1].RecvCase(&b)}
		for range ops {
			if _, err := kc.Select(j, cases...); err != nil {
				return err
			}
		}
		t.StopTimer()
		return nil
	})
}

func goSelect(t timer, _, ops int) error {
	var chans [2]chan int
	for i := range chans {
		chans[i] = make(chan int, ChanBufferedCap)
	}
	t.ResetTimer()
	for k, ch := range chans {
		go func() {
			for i := k; i < ops; i += 2 {
				ch <- 1
			}
		}()
	}
	for range ops {
		select {
		case <-chans[0]:
		case <-chans[1]:
		}
	}
	t.StopTimer()
	return nil
}

// SleepWakeDelay is how long one SleepWake op sleeps.
const SleepWakeDelay = time.Microsecond

// kcSleepWake: the root sleeps SleepWakeDelay; one op is arming the timer,
// parking, the timer firing and the wake. It measures the timer path, so
// it is dominated by the OS timer resolution on most machines.
func kcSleepWake(t timer, backend string, _, ops int) error {
	return inRuntime(backend, func(j *kc.Job) error {
		t.ResetTimer()
		for range ops {
			if err := j.Sleep(SleepWakeDelay); err != nil {
				return err
			}
		}
		t.StopTimer()
		return nil
	})
}

func goSleepWake(t timer, _, ops int) error {
	t.ResetTimer()
	for range ops {
		time.Sleep(SleepWakeDelay)
	}
	t.StopTimer()
	return nil
}
