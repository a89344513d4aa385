package vcore

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestThreadIDs checks that Park's caller lookup is on wherever threadID
// is implemented: without it the registry stays empty and Park never hands
// a core off.
func TestThreadIDs(t *testing.T) {
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "windows/amd64", "windows/arm64":
	default:
		switch runtime.GOOS {
		case "linux", "darwin", "freebsd":
		default:
			t.Skipf("no threadID on %s/%s", runtime.GOOS, runtime.GOARCH)
		}
	}
	if !threadIDsWork() {
		t.Fatalf("threadIDsWork on %s/%s: got false; want true (threadID: %d)", runtime.GOOS, runtime.GOARCH, threadID())
	}
	var r registry
	r.init(4)
	if len(r.slots) != 4 {
		t.Errorf("registry.init(4): got %d slots; want 4", len(r.slots))
	}
}

// TestRegistrySelfUnlocked checks that a goroutine that is not locked to
// its thread never finds a worker in the registry, while other goroutines
// keep locking threads and registering and unregistering on them (an
// unlocked caller can move off its thread mid-lookup, and the thread can be
// locked and registered by another goroutine meanwhile).
func TestRegistrySelfUnlocked(t *testing.T) {
	if !regByG && !threadIDsWork() {
		t.Skipf("no thread ids on %s/%s: the registry stays empty", runtime.GOOS, runtime.GOARCH)
	}
	var r registry
	r.init(8)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			w := testWorker(uint64(i + 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				runtime.LockOSThread()
				r.add(w)
				if got := r.self(); got != w {
					t.Errorf("self of a registered, locked goroutine: got %p; want its worker %p", got, w)
				}
				r.remove(w)
				runtime.UnlockOSThread()
				runtime.Gosched()
			}
		})
	}
	var bad sync.Once
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if w := r.self(); w != nil {
					bad.Do(func() { t.Errorf("self of an unlocked goroutine: got worker %d; want nil", w.id.Load()) })
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
}

// TestRegistryByG checks the goroutine keys: a registered goroutine finds
// its worker whether or not it is locked, and no other goroutine finds it.
func TestRegistryByG(t *testing.T) {
	if !regByG {
		t.Skipf("no goruntime.G on %s: the registry is keyed by thread", runtime.GOARCH)
	}
	var r registry
	r.init(4)
	w := testWorker(1)
	r.add(w)
	defer r.remove(w)
	for range 100 {
		if got := r.self(); got != w {
			t.Fatalf("self of the registered, unlocked goroutine: got %p; want %p", got, w)
		}
		runtime.Gosched() // move threads, maybe; the key stays
	}
	other := make(chan *worker)
	go func() { other <- r.self() }()
	if got := <-other; got != nil {
		t.Errorf("self of another goroutine: got worker %d; want nil", got.id.Load())
	}
}
