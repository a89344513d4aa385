package stealing

import (
	"sync"
	"sync/atomic"
)

// gtable maps the g of each live loop coroutine (goruntime.G) to the
// coroutine, so that Park can tell whether its caller is one of this
// executor's loop coroutines, and which. It is an open-addressing hash
// table with linear probing and tombstones. Lookups take no lock: they
// load the current table through cur and probe it. Inserts and removes
// take mu, and so does a rebuild, which copies the live entries into a
// fresh table sized for them and publishes it through cur: when inserts
// leave too few empty slots (so probes would run long) or removes leave
// too many (so the table would hold memory the load no longer needs).
//
// Every key is inserted, looked up and removed by its own goroutine only
// (a coroutine registers itself when it starts and removes itself before
// it ends), which is what makes lock-free lookups sound:
//   - a lookup of the caller's own key loads cur after its insert, and
//     every table published after that insert holds the key (the rebuild
//     copies it under mu), so it finds it;
//   - a lookup of a key that is not there (a goroutine that is not a loop
//     coroutine) probes to an empty slot and finds nothing. A removed key
//     was removed before its goroutine ended, so before the runtime could
//     give its g to the caller; the caller's load of cur comes later.
//
// Within a table, a slot's val is stored before its key (seq-cst), so a
// lookup that sees the key sees the val; a remove stores the tombstone and
// leaves val to be overwritten.
type gtable struct {
	cur atomic.Pointer[gtab] // the current table; replaced under mu
	mu  sync.Mutex           // serializes insert, remove and rebuild
}

// gtab is one table. Its slots are read lock-free; written under
// gtable.mu. live and used are under gtable.mu.
type gtab struct {
	slots []gslot
	shift uint // 64 - log2(len(slots))
	live  int  // keys present
	used  int  // keys present plus tombstones
}

// gslot is one entry: key 0 is empty, gTomb a removed key.
type gslot struct {
	key atomic.Uintptr
	val atomic.Pointer[coro]
}

const (
	gTomb   = 1  // a removed key; no g is at address 1
	gMinCap = 64 // the smallest table
)

// lookup returns the coroutine registered for g, or nil. Lock-free.
func (t *gtable) lookup(g uintptr) *coro {
	tb := t.cur.Load()
	if tb == nil {
		return nil
	}
	mask := uint64(len(tb.slots) - 1)
	for i := ghash(g, tb.shift); ; i = (i + 1) & mask {
		s := &tb.slots[i]
		switch k := s.key.Load(); k {
		case g:
			return s.val.Load()
		case 0:
			return nil
		}
	}
}

// insert registers c under g, which must not be registered.
func (t *gtable) insert(g uintptr, c *coro) {
	t.mu.Lock()
	tb := t.cur.Load()
	if tb == nil || 4*(tb.used+1) > 3*len(tb.slots) {
		tb = t.rebuildLocked(tb, 1)
	}
	mask := uint64(len(tb.slots) - 1)
	for i := ghash(g, tb.shift); ; i = (i + 1) & mask {
		s := &tb.slots[i]
		if k := s.key.Load(); k == 0 || k == gTomb {
			if k == 0 {
				tb.used++
			}
			tb.live++
			s.val.Store(c)
			s.key.Store(g) // publishes val to lookups
			break
		}
	}
	t.mu.Unlock()
}

// remove unregisters g, which must be registered.
func (t *gtable) remove(g uintptr) {
	t.mu.Lock()
	tb := t.cur.Load()
	mask := uint64(len(tb.slots) - 1)
	for i := ghash(g, tb.shift); ; i = (i + 1) & mask {
		s := &tb.slots[i]
		if k := s.key.Load(); k == g {
			s.key.Store(gTomb)
			tb.live--
			break
		} else if k == 0 {
			t.mu.Unlock()
			panic("stealing: removing a goroutine that is not in the table")
		}
	}
	if len(tb.slots) > gMinCap && 16*tb.live < len(tb.slots) {
		t.rebuildLocked(tb, 0)
	}
	t.mu.Unlock()
}

// rebuildLocked publishes a new table holding old's live entries, sized so
// that they and extra more fill a quarter of it, and returns it. The old
// table stays valid for lookups in flight (it is never written again).
func (t *gtable) rebuildLocked(old *gtab, extra int) *gtab {
	live := extra
	if old != nil {
		live += old.live
	}
	n, shift := gMinCap, uint(64-6)
	for n < 4*live {
		n, shift = 2*n, shift-1
	}
	tb := &gtab{slots: make([]gslot, n), shift: shift}
	if old != nil {
		mask := uint64(n - 1)
		for i := range old.slots {
			s := &old.slots[i]
			k := s.key.Load()
			if k == 0 || k == gTomb {
				continue
			}
			j := ghash(k, shift)
			for tb.slots[j].key.Load() != 0 {
				j = (j + 1) & mask
			}
			tb.slots[j].val.Store(s.val.Load())
			tb.slots[j].key.Store(k)
			tb.live++
			tb.used++
		}
	}
	t.cur.Store(tb) // publishes the filled table
	return tb
}

// size returns the number of registered keys and the table's capacity.
func (t *gtable) size() (live, capacity int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tb := t.cur.Load(); tb != nil {
		return tb.live, len(tb.slots)
	}
	return 0, 0
}

// ghash is Fibonacci hashing of a g address into a table of 2^(64-shift)
// slots: g addresses share their low bits (they are aligned), so the
// high bits of the product are used.
func ghash(g uintptr, shift uint) uint64 {
	return (uint64(g) * 0x9e3779b97f4a7c15) >> shift
}
