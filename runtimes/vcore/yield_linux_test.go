package vcore_test

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
	"github.com/kcbench/kcbench/runtimes/vcore"
	"golang.org/x/sys/unix"
)

// setProcessAffinity gives every thread of the process the mask m; threads
// started later inherit it from the thread that starts them.
func setProcessAffinity(t *testing.T, m *unix.CPUSet) {
	t.Helper()
	tids, err := filepath.Glob("/proc/self/task/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range tids {
		tid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			t.Fatal(err)
		}
		if err := unix.SchedSetaffinity(tid, m); err != nil && err != unix.ESRCH {
			t.Fatalf("sched_setaffinity(%d): %v", tid, err)
		}
	}
}

// A goroutine of a body polls with Job.Yield until a short task it
// launched, already running on the other core (it spins until the poller
// starts), is done, with the whole process on one CPU: the poller's thread
// and the task's owner thread take turns on it. Yield must hand the CPU to the task's thread; runtime.Gosched alone
// keeps the poller running for its time slice (ms) while the task waits.
func TestYieldLetsPolledTaskRun(t *testing.T) {
	var orig unix.CPUSet
	if err := unix.SchedGetaffinity(0, &orig); err != nil {
		t.Skip("sched_getaffinity:", err)
	}
	one := unix.CPUSet{}
	for i := range len(orig) * 64 {
		if orig.IsSet(i) {
			one.Set(i)
			break
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	setProcessAffinity(t, &one)
	defer setProcessAffinity(t, &orig)

	rt, _ := newRT(t, vcore.Workers(2))
	defer rt.Close()
	const rounds, work = 40, 20 * time.Microsecond
	var waits []time.Duration
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		nur, err := j.Open()
		if err != nil {
			return err
		}
		for range rounds {
			var started, run, done atomic.Bool
			task := func(*kc.Job) error {
				started.Store(true)
				for !run.Load() {
				}
				for t0 := time.Now(); time.Since(t0) < work; {
				}
				done.Store(true)
				return nil
			}
			polled := make(chan time.Duration)
			go func() {
				if _, err := nur.Launch(task); err != nil {
					polled <- 0
					return
				}
				for !started.Load() {
					time.Sleep(20 * time.Microsecond)
				}
				t0 := time.Now()
				run.Store(true)
				for !done.Load() {
					_ = j.Yield()
				}
				polled <- time.Since(t0)
			}()
			waits = append(waits, <-polled)
		}
		return nur.AwaitAll(j)
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(waits)
	if med := waits[len(waits)/2]; med > time.Millisecond {
		t.Errorf("median wait for a %v task polled with Yield on one CPU: %v (sorted: %v)", work, med, waits)
	}
	t.Logf("waits: %v", waits)
}
