package stealing

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestParkBatchSpin checks Park's choice of spin for a channel wait: a
// Recv that blocks on an empty buffered channel spins with SpinBatch
// (testHookBatchSpin sees it, once), one that blocks on a rendezvous
// channel with SpinLocal (the hook sees nothing), and one whose body
// holds its thread locked does not spin at all (the hook sees nothing:
// a yield there would hand the thread off). The Recv certainly blocks:
// the sender, a plain goroutine, sends only once the channel reports a
// blocked receiver.
func TestParkBatchSpin(t *testing.T) {
	testutil.NoLeak(t)
	var seen []bool // per hook call: the Parker was a Batch one
	testHookBatchSpin = func(p *kc.Parker) { seen = append(seen, p.Batch()) }
	defer func() { testHookBatchSpin = nil }()
	for _, tc := range []struct {
		capacity int
		locked   bool
	}{{4, false}, {0, false}, {4, true}} {
		capacity := tc.capacity
		seen = nil
		e, err := New(Workers(1))
		if err != nil {
			t.Fatal(err)
		}
		rt := kc.New(e)
		ch, _ := kc.NewChan[int](capacity)
		sent := make(chan error, 1)
		go func() {
			deadline := time.Now().Add(10 * time.Second)
			for {
				if _, r := ch.Blocked(); r == 1 {
					sent <- ch.Send(nil, 7)
					return
				}
				if time.Now().After(deadline) {
					sent <- context.DeadlineExceeded
					return
				}
				runtime.Gosched()
			}
		}()
		var v int
		err = rt.Run(context.Background(), func(j *kc.Job) error {
			var err error
			if tc.locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			v, err = ch.Recv(j)
			return err
		})
		if cerr := rt.Close(); err == nil {
			err = cerr
		}
		if err != nil || v != 7 {
			t.Fatalf("capacity %d: Recv = %d, %v; want 7, nil", capacity, v, err)
		}
		if err := <-sent; err != nil {
			t.Fatalf("capacity %d: the sender: %v", capacity, err)
		}
		want := 0
		if capacity > 0 && !tc.locked {
			want = 1
		}
		if len(seen) != want {
			t.Errorf("capacity %d, locked %v: SpinBatch calls = %d; want %d", capacity, tc.locked, len(seen), want)
		}
		for _, b := range seen {
			if !b {
				t.Errorf("capacity %d: SpinBatch for a Parker that is not Batch", capacity)
			}
		}
	}
}
