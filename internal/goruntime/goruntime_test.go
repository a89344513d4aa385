package goruntime_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// TestProcPin checks that ProcPin returns a P id below GOMAXPROCS, the
// bound the per-P arrays of the runtimes are sized by.
func TestProcPin(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for range 1000 {
		pid := goruntime.ProcPin()
		goruntime.ProcUnpin()
		if pid < 0 || pid >= procs {
			t.Fatalf("ProcPin: got P %d; want 0 to %d", pid, procs-1)
		}
	}
}

// TestG checks that G is stable within a goroutine and differs between
// live goroutines (and is 0 exactly where GOK is false).
func TestG(t *testing.T) {
	self := goruntime.G()
	if !goruntime.GOK {
		if self != 0 {
			t.Fatalf("G without GOK: got %#x; want 0", self)
		}
		return
	}
	if self == 0 {
		t.Fatal("G: got 0; want the goroutine's g")
	}
	const n = 16
	ids := make(chan uintptr, n)
	release := make(chan struct{})
	for range n {
		go func() {
			g := goruntime.G()
			runtime.Gosched()
			if goruntime.G() != g {
				g = 0 // changed across a reschedule: reported below as a duplicate 0
			}
			ids <- g
			<-release // stay alive, so no g is reused
		}()
	}
	seen := map[uintptr]bool{self: true}
	for range n {
		g := <-ids
		if g == 0 || seen[g] {
			t.Errorf("G: got %#x, zero, unstable or shared with another live goroutine", g)
		}
		seen[g] = true
	}
	close(release)
	if goruntime.G() != self {
		t.Error("G changed within one goroutine")
	}
}

// TestLockedOSThread checks that LockedOSThread follows LockOSThread.
func TestLockedOSThread(t *testing.T) {
	done := make(chan [3]bool)
	go func() {
		var got [3]bool
		got[0] = goruntime.LockedOSThread()
		runtime.LockOSThread()
		got[1] = goruntime.LockedOSThread()
		runtime.UnlockOSThread()
		got[2] = goruntime.LockedOSThread()
		done <- got
	}()
	if got := <-done; got != [3]bool{false, true, false} {
		t.Errorf("LockedOSThread before, inside and after LockOSThread: got %v; want [false true false]", got)
	}
}

// TestCheapRandN checks that CheapRandN stays in [0, n) and reaches every
// value of a small range (a select relies on both to pick among cases).
func TestCheapRandN(t *testing.T) {
	for _, n := range []uint32{1, 2, 3, 7} {
		seen := make([]int, n)
		for range 10000 {
			r := goruntime.CheapRandN(n)
			if r >= n {
				t.Fatalf("CheapRandN(%d) = %d; want < %d", n, r, n)
			}
			seen[r]++
		}
		for v, k := range seen {
			if k == 0 {
				t.Errorf("CheapRandN(%d) never returned %d in 10000 draws", n, v)
			}
		}
	}
}

// TestStoreRel checks that StoreRel and StoreRelPointer store their value
// where an atomic load reads it, and that a reader that loads the flag set
// by StoreRel sees the value written before the store. The ordering half
// cannot fail on amd64, where the plain store is used: the hardware keeps
// stores in order. It can fail where a compiler or a weaker machine moved
// the data store after the flag's, and it fails on any platform if either
// function stores nothing or elsewhere (the read-back checks come before
// the wait for the reader, so that such a bug fails the test instead of
// hanging it).
func TestStoreRel(t *testing.T) {
	type box struct{ v int }
	for round := range 2000 {
		var (
			flag atomic.Uint32
			ptr  atomic.Pointer[box]
			data [2]int
		)
		done := make(chan [2]int)
		go func() {
			for flag.Load() == 0 {
				runtime.Gosched()
			}
			got := data[0]
			b := ptr.Load()
			for b == nil {
				runtime.Gosched()
				b = ptr.Load()
			}
			done <- [2]int{got, b.v}
		}()
		data[0] = round + 1
		goruntime.StoreRel(&flag, 1)
		b := &box{v: round + 2}
		goruntime.StoreRelPointer(&ptr, b)
		if flag.Load() != 1 || ptr.Load() != b {
			t.Fatalf("round %d: flag %d, pointer %p read back; want 1, %p", round, flag.Load(), ptr.Load(), b)
		}
		if got := <-done; got != [2]int{round + 1, round + 2} {
			t.Fatalf("round %d: reader saw %v; want [%d %d]", round, got, round+1, round+2)
		}
	}
}

// PrefetchLines is a hint: on memory that is there it changes nothing,
// and on addresses with nothing mapped (the null page, a stale pointer)
// it must not fault, as a load would.
func TestPrefetchLines(t *testing.T) {
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = byte(i)
	}
	goruntime.PrefetchLines(uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)/64))
	for i := range buf {
		if buf[i] != byte(i) {
			t.Fatalf("byte %d changed to %d", i, buf[i])
		}
	}
	goruntime.PrefetchLines(0, 8)              // the null page
	goruntime.PrefetchLines(^uintptr(0)-63, 1) // the top of the address space
	goruntime.PrefetchLines(64, 0)             // nothing at all
}

// PrefetchResume of unset or stale addresses does not fault: sp 0 wraps
// below the null page, and the top of the address space is unmapped.
func TestPrefetchResume(t *testing.T) {
	goruntime.PrefetchResume(0, 0)
	goruntime.PrefetchResume(^uintptr(0)&^63, ^uintptr(0)&^63)
	goruntime.PrefetchResume(goruntime.G(), uintptr(unsafe.Pointer(&t)))
}

// UnlockOSThreadAll undoes every LockOSThread still in effect.
func TestUnlockOSThreadAll(t *testing.T) {
	done := make(chan bool)
	go func() {
		for range 3 {
			runtime.LockOSThread()
		}
		goruntime.UnlockOSThreadAll()
		done <- goruntime.LockedOSThread()
	}()
	if <-done {
		t.Error("after three LockOSThread and UnlockOSThreadAll: still locked")
	}
}
