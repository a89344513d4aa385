package vcore

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// The costs the package doc quotes. Run with
//
//	go test -run x -bench . -count 5 ./runtimes/vcore

// BenchmarkSelf is what Park pays to learn whether its caller owns a core:
// a registry key (goruntime.G, or a threadID where G is missing) and a
// registry scan.
func BenchmarkSelf(b *testing.B) {
	if !regByG && !threadIDsWork() {
		b.Skip("no thread ids: the registry stays empty")
	}
	var r registry
	r.init(8)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	w := testWorker(1)
	r.add(w)
	defer r.remove(w)
	for b.Loop() {
		if r.self() != w {
			b.Fatal("self: not found")
		}
	}
}

// BenchmarkPingPong is a rendezvous-channel round trip between two jobs:
// two parks and two wake-ups, each park a core handoff.
func BenchmarkPingPong(b *testing.B) {
	for _, n := range []int{1, 2} {
		b.Run("workers="+string(rune('0'+n)), func(b *testing.B) {
			ex, err := New(Workers(n))
			if err != nil {
				b.Fatal(err)
			}
			rt := kc.New(ex)
			defer rt.Close()
			err = rt.Run(context.Background(), func(j *kc.Job) error {
				ping, _ := kc.NewChan[int](0)
				pong, _ := kc.NewChan[int](0)
				j.Launch(func(c *kc.Job) error {
					for {
						v, err := ping.Recv(c)
						if err != nil {
							return nil
						}
						pong.Send(c, v)
					}
				})
				b.ResetTimer()
				for i := range b.N {
					ping.Send(j, i)
					pong.Recv(j)
				}
				b.StopTimer()
				ping.Close()
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(ex.Stats().Handoffs)/float64(b.N), "handoffs/op")
		})
	}
}

// BenchmarkSpawnJoin spawns one task from outside and joins it: with
// Spin(0) every task lands on a sleeping owner (a goroutine wake-up); with
// the default spin, back-to-back tasks find it awake.
func BenchmarkSpawnJoin(b *testing.B) {
	for _, spin := range []time.Duration{0, 5 * time.Microsecond, 20 * time.Microsecond, 100 * time.Microsecond} {
		b.Run("spin="+spin.String(), func(b *testing.B) {
			ex, err := New(Workers(1), Spin(spin))
			if err != nil {
				b.Fatal(err)
			}
			rt := kc.New(ex)
			defer rt.Close()
			for b.Loop() {
				rt.Run(context.Background(), func(*kc.Job) error { return nil })
			}
			b.ReportMetric(float64(ex.Stats().Wakes)/float64(b.N), "wakes/op")
		})
	}
}

// BenchmarkAwaitPending is perf's AwaitPending on vcore alone, with the
// counters that explain its cost: how often the awaiter found its child
// already taken by another owner and had to park (a core handoff).
func BenchmarkAwaitPending(b *testing.B) {
	ex, err := New()
	if err != nil {
		b.Fatal(err)
	}
	rt := kc.New(ex)
	defer rt.Close()
	before := ex.Stats()
	err = rt.Run(context.Background(), func(j *kc.Job) error {
		b.ResetTimer()
		for range b.N {
			d, err := kc.Async(j, func(*kc.Job) (int, error) { return 1, nil })
			if err != nil {
				return err
			}
			if v, err := d.Await(j); err != nil || v != 1 {
				return fmt.Errorf("Await = %d, %v; want 1, nil", v, err)
			}
		}
		b.StopTimer()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	st := ex.Stats()
	b.ReportMetric(float64(st.Handoffs-before.Handoffs)/float64(b.N), "handoffs/op")
	b.ReportMetric(float64(st.Steals-before.Steals)/float64(b.N), "steals/op")
	b.ReportMetric(float64(st.Wakes-before.Wakes)/float64(b.N), "wakes/op")
}
