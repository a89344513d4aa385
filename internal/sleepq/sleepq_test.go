package sleepq

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
)

// testQueue is a Queue with the WaitGroup that an executor would give it.
type testQueue struct {
	Queue
	wg sync.WaitGroup
}

// newQueue returns a Queue with a shard per P, as an executor makes it.
func newQueue() *testQueue {
	q := new(testQueue)
	q.Init(runtime.GOMAXPROCS(0), &q.wg, "sleepq test")
	return q
}

// close is the executor's Close: the queue's, then the wait for its fires.
func (q *testQueue) close() {
	q.Close()
	q.wg.Wait()
}

// heapLen is the number of entries, live or stopped, in every shard.
func heapLen(q *testQueue) int {
	n := 0
	for i := range q.shards {
		sh := &q.shards[i]
		sh.mu.Lock()
		n += len(sh.h)
		sh.mu.Unlock()
	}
	return n
}

// Stopped timers must not pile up: a heap compacts when it reaches its
// limit, so after rounds of arming and stopping timers far in the future
// (the sleeps of a cancelled fan-out) it holds at most about twice the
// live ones.
func TestSleepQueueCompacts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	testutil.NoLeak(t)
	q := newQueue()
	defer q.close()
	runtime.GOMAXPROCS(1) // every pin finds P 0: every timer goes to shard 0
	const n, rounds = 5000, 8
	live := make([]*Timer, 0, n)
	for range n {
		live = append(live, q.AfterFunc(time.Hour, func() {}))
	}
	for range rounds {
		next := make([]*Timer, 0, n)
		for range n {
			next = append(next, q.AfterFunc(time.Hour, func() {}))
		}
		for _, tm := range live {
			if !tm.Stop() {
				t.Fatal("Stop of a pending timer reported false")
			}
		}
		live = next
	}
	// n live now, n*rounds stopped. The shard holds at most its limit,
	// twice the live entries at its last compaction (at least minCompact),
	// and at most 2n were live at once: a round arms its n before it stops
	// the previous n. Without compaction, all (rounds+1)*n would be there.
	limit := max(4*n, minCompact)
	if got := heapLen(q); got > limit {
		t.Errorf("heaps hold %d entries with %d live; want at most %d", got, n, limit)
	}
	for _, tm := range live {
		tm.Stop()
	}
}

// Stop's answer is exact when it races with the fire: every timer is
// either stopped (Stop true, f never called) or fired (f called once,
// Stop false).
func TestSleepQueueStopExact(t *testing.T) {
	testutil.NoLeak(t)
	q := newQueue()
	const n = 4000
	var calls [n]atomic.Int32
	timers := make([]*Timer, n)
	start := time.Now()
	for i := range timers {
		timers[i] = q.AfterFunc(time.Duration(i%200)*time.Microsecond, func() { calls[i].Add(1) })
	}
	stopped := make([]bool, n)
	for k := range 200 { // each at about its deadline, to race with the fire
		for time.Since(start) < time.Duration(k)*time.Microsecond {
		}
		for i := k; i < n; i += 200 {
			stopped[i] = timers[i].Stop()
		}
	}
	testutil.Watchdog(t, 10*time.Second, func() {
		for i := range calls {
			for !stopped[i] && calls[i].Load() == 0 {
				time.Sleep(100 * time.Microsecond)
			}
		}
	})
	q.close()
	wins := 0
	for i := range calls {
		c := calls[i].Load()
		if stopped[i] {
			wins++
		}
		if stopped[i] && c != 0 || !stopped[i] && c != 1 {
			t.Errorf("timer %d: Stop reported %v, f called %d times", i, stopped[i], c)
		}
	}
	t.Logf("%d of %d stops won", wins, n)
}

// No timer fires before its deadline, and every one fires.
func TestSleepQueueNotEarly(t *testing.T) {
	testutil.NoLeak(t)
	q := newQueue()
	defer q.close()
	const n = 500
	var wg sync.WaitGroup
	wg.Add(n)
	for i := range n {
		d := time.Duration((i*7919)%3000) * time.Microsecond
		start := time.Now()
		q.AfterFunc(d, func() {
			if got := time.Since(start); got < d {
				t.Errorf("timer of %v fired after %v", d, got)
			}
			wg.Done()
		})
	}
	testutil.Watchdog(t, 10*time.Second, wg.Wait)
}

// Close and the wait that follows it wait for a timer function that is
// running: no goroutine of the executor, the fire's included, outlives its
// Close.
func TestSleepQueueCloseWaitsForFire(t *testing.T) {
	testutil.NoLeak(t)
	q := newQueue()
	started := make(chan struct{})
	var returned atomic.Bool
	q.AfterFunc(0, func() {
		close(started)
		time.Sleep(20 * time.Millisecond)
		returned.Store(true)
	})
	q.AfterFunc(time.Hour, func() { t.Error("a timer of an hour fired") }).Stop()
	<-started
	testutil.Watchdog(t, 10*time.Second, func() {
		q.close()
	})
	if !returned.Load() {
		t.Error("Close returned while a timer's function was running")
	}
}

// A fire that takes several due timers runs each function on a goroutine
// of its own, as time.AfterFunc does: one that blocks holds up no other.
func TestSleepQueueBlockedFuncDelaysNone(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	testutil.NoLeak(t)
	q := newQueue()
	runtime.GOMAXPROCS(1) // every pin finds P 0: every timer goes to shard 0
	release := make(chan struct{})
	others := make(chan struct{}, 8)
	for i := range 8 {
		if i == 3 {
			q.AfterFunc(time.Millisecond, func() { <-release })
			continue
		}
		q.AfterFunc(time.Millisecond, func() { others <- struct{}{} })
	}
	testutil.Watchdog(t, 10*time.Second, func() {
		for range 7 {
			<-others
		}
	})
	close(release)
	q.close()
}

// A timer whose d is too long for the clock (a "forever" wait) never
// fires and does not hold up the other timers of its shard: its deadline
// saturates instead of wrapping to a negative one, which was the shard's
// earliest for good and kept every later timer from being armed.
func TestForeverTimerLeavesShardWorking(t *testing.T) {
	q := new(testQueue)
	q.Init(1, &q.wg, "sleepq test") // one shard: every P shares it
	defer q.close()
	time.Sleep(time.Millisecond) // Now() > 0
	var forever atomic.Bool
	fired := make(chan struct{})
	q.AfterFunc(time.Duration(math.MaxInt64), func() { forever.Store(true) })
	q.AfterFunc(time.Millisecond, func() { close(fired) })
	select {
	case <-fired:
	case <-time.After(5 * time.Second):
		t.Fatal("a 1 ms timer armed after a forever one has not fired after 5 s")
	}
	if forever.Load() {
		t.Error("a forever timer fired")
	}
	if got := deadline(1, time.Duration(math.MaxInt64)); got != math.MaxInt64 {
		t.Errorf("deadline(1, MaxInt64) = %d; want MaxInt64", got)
	}
	if got := deadline(5, -3); got != 5 {
		t.Errorf("deadline(5, -3) = %d; want 5", got)
	}
}
