//go:build kcfaults

package kc

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
)

var errSelectCause = errors.New("kc test: select cause")

// TestSelectLockedPassChecksCancel: a Select whose job is cancelled after
// its first pass found nothing ready, and whose case becomes ready at that
// moment too (a sender blocks on the channel), returns the cancellation
// and performs nothing: the locked pass checks the job's cancellation
// before it tries the cases, as the first pass does under each channel's
// mutex. A locked pass that went straight to the cases would take the
// value of a job cancelled before it looked. The hook cancels the job and
// blocks a sender at that point, on the Select's goroutine.
func TestSelectLockedPassChecksCancel(t *testing.T) {
	rt := New(goExecutor())
	defer rt.Close()
	for round := range 10 {
		a, _ := NewChan[int](0)
		sent := make(chan error, 1)
		var fired atomic.Bool
		var self atomic.Pointer[Job]
		var idx int
		var serr error
		withWindow(t, func(p windowPoint, x *Job) {
			if p != winSelectLocked || x == nil || x != self.Load() || !fired.CompareAndSwap(false, true) {
				return
			}
			x.Cancel(errSelectCause)
			go func() { sent <- a.Send(nil, 7) }()
			for n, _ := a.Blocked(); n == 0; n, _ = a.Blocked() {
				runtime.Gosched()
			}
		}, func() {
			err := rt.Run(context.Background(), func(j *Job) error {
				self.Store(j)
				var v int
				idx, serr = Select(j, a.RecvCase(&v))
				return nil
			})
			if !errors.Is(err, ErrCancelled) {
				t.Errorf("round %d: Run of the cancelled selector: %v; want ErrCancelled", round, err)
			}
		})
		if !fired.Load() {
			t.Fatalf("round %d: the Select never reached winSelectLocked", round)
		}
		if idx != -1 || !errors.Is(serr, ErrCancelled) || !errors.Is(serr, errSelectCause) {
			t.Errorf("round %d: Select by a job cancelled before its locked pass, with a case ready there: (%d, %v); want (-1, the cancellation)", round, idx, serr)
		}
		if v, err := a.TryRecv(); err != nil || v != 7 {
			t.Errorf("round %d: TryRecv after the cancelled Select: (%d, %v); want the blocked sender's 7", round, v, err)
		}
		if err := <-sent; err != nil {
			t.Errorf("round %d: the sender's Send: %v; want nil", round, err)
		}
		if t.Failed() {
			return
		}
	}
}

// TestSelectLockedPassRandomStart: when no case is ready in a Select's
// first pass and two become ready before its locked pass, the locked pass
// chooses between them at random, as the first pass does: over 64 Selects
// both are chosen. A locked pass that tried the cases in index order
// would always choose the first. The hook fills both buffered channels at
// that point.
func TestSelectLockedPassRandomStart(t *testing.T) {
	rt := New(goExecutor())
	defer rt.Close()
	var chosen [2]int
	err := rt.Run(context.Background(), func(j *Job) error {
		for range 64 {
			a, _ := NewChan[int](1)
			b, _ := NewChan[int](1)
			var fired atomic.Bool
			withWindow(t, func(p windowPoint, x *Job) {
				if p == winSelectLocked && x == j && fired.CompareAndSwap(false, true) {
					a.TrySend(1)
					b.TrySend(2)
				}
			}, func() {
				i, err := Select(j, a.RecvCase(nil), b.RecvCase(nil))
				if err != nil || i < 0 {
					t.Errorf("Select with both cases made ready before its locked pass: (%d, %v); want one of them", i, err)
					return
				}
				chosen[i]++
			})
			if !fired.Load() {
				t.Fatal("the Select never reached winSelectLocked")
			}
			if t.Failed() {
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if chosen[0] == 0 || chosen[1] == 0 {
		t.Errorf("cases chosen by 64 locked passes with both ready: %v; want both chosen", chosen)
	}
}
