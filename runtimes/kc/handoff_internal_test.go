package kc

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countResumer counts its Resume calls and reports the first on done.
type countResumer struct {
	n    atomic.Int32
	done chan struct{}
}

func (r *countResumer) Resume() {
	if r.n.Add(1) == 1 {
		close(r.done)
	}
}

// TestParkerHandoff races a wake against Suspend, many rounds, with both
// orders forced and left to chance: exactly one of the two ways out must
// happen, once. Suspend true: Resume is called exactly once and Wait is
// never released. Suspend false: Resume is never called and Wait returns.
func TestParkerHandoff(t *testing.T) {
	const rounds = 20000
	var suspended, early int
	for i := range rounds {
		p := new(Parker)
		p.init(true)
		r := &countResumer{done: make(chan struct{})}
		var wg sync.WaitGroup
		wg.Add(1)
		wakeFirst := i%3 == 0 // forced order; else a race
		if wakeFirst {
			if !p.wake(wakeDone) {
				t.Fatal("first wake lost its CAS")
			}
		}
		go func() {
			defer wg.Done()
			if !wakeFirst {
				p.wake(wakeDone)
			}
		}()
		ok := p.Suspend(r)
		if wakeFirst && ok {
			t.Fatalf("round %d: Suspend after the wake reported true", i)
		}
		if ok {
			suspended++
			select {
			case <-r.done:
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: Suspend installed the resumer but the wake never called it", i)
			}
		} else {
			early++
			waited := make(chan struct{})
			go func() { p.Wait(); close(waited) }()
			select {
			case <-waited:
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: Suspend reported the wake, but Wait does not return", i)
			}
		}
		wg.Wait()
		if n := r.n.Load(); ok && n != 1 || !ok && n != 0 {
			t.Fatalf("round %d: Suspend %v, Resume called %d times", i, ok, n)
		}
		if p.reason.Load() != wakeDone {
			t.Fatalf("round %d: reason %d; want wakeDone", i, p.reason.Load())
		}
	}
	if suspended == 0 || early == 0 {
		t.Errorf("suspended %d times, woken first %d times; want both orders", suspended, early)
	}
}

// TestParkerHandoffQuick checks that a quick Parker (a channel wait) is
// never handed off: Suspend panics, and its wake releases Wait.
func TestParkerHandoffQuick(t *testing.T) {
	p := new(Parker)
	p.init(true)
	p.quick = true
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Suspend on a quick Parker: no panic")
			}
		}()
		p.Suspend(&countResumer{done: make(chan struct{})})
	}()
	p.wake(wakeDone)
	p.Wait()
}

// TestParkerHandoffReuse checks that signal's last touch is Done, Resume or
// the ready: a Parker zeroed and re-initialised right after its Wait returns,
// as a channel's own wait node is, must behave as a new one, round after
// round; under -race a touch after Done shows as a race with the zeroing.
func TestParkerHandoffReuse(t *testing.T) {
	p := new(Parker)
	for i := range 10000 {
		*p = Parker{}
		p.init(true)
		p.quick = i%2 == 0
		go p.wake(wakeDone)
		p.Wait()
	}
}

// TestParkerWaitWake races Wait against the wake on one reused Parker,
// with the wake forced first, forced after the waiter is parked, and left
// to chance: every Wait must return (a lost ready hangs the round, which
// the watchdog reports) and see the wake reason. In non-race builds this
// is the direct park (goruntime.Park) against signal's ready.
func TestParkerWaitWake(t *testing.T) {
	const rounds = 20000
	done := make(chan error, 1)
	go func() {
		p := new(Parker)
		for i := range rounds {
			*p = Parker{}
			p.init(i%2 == 0)
			p.quick = i%4 < 2
			switch i % 3 {
			case 0: // the wake first: Wait must not park
				p.wake(wakeCancel)
			case 1: // the waiter parks first (most of the time)
				go func() {
					for range 3 {
						runtime.Gosched()
					}
					p.wake(wakeCancel)
				}()
			default: // a race
				go p.wake(wakeCancel)
			}
			p.Wait()
			if r := p.reason.Load(); r != wakeCancel {
				done <- fmt.Errorf("round %d: reason after Wait %d; want wakeCancel", i, r)
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a Wait never returned: a wake was lost")
	}
}
