package kc

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/kcbench/kcbench/internal/goruntime"
)

// A SelectCase is one arm of Select or TrySelect, made by Chan.RecvCase or
// Chan.SendCase. A case made from a nil *Chan is never ready, as with a nil
// Go channel. A case value may be reused by later Selects, but not by two at
// once.
type SelectCase interface {
	mutex() *sync.Mutex // nil for a case on a nil channel
	buffered() bool     // its channel has a buffer (see Parker.Batch)
	// poll tries the case under its channel's mutex alone (see
	// selectPoll): Select's first pass, before it locks every channel.
	poll(j *Job) (selectPoll, error)
	tryLocked() (done bool, err error, wake *chanWaiter)
	enqueueLocked(w *chanWaiter, idx uint32)
	dequeueLocked() error // unlinks the case's sudog; returns its outcome if it completed
}

// RecvCase returns a case that receives into *dst (dst may be nil to drop
// the value). Select reports ErrClosed for it once c is closed and drained.
func (c *Chan[T]) RecvCase(dst *T) SelectCase {
	rc := &recvCase[T]{c: c}
	if dst == nil {
		dst = &rc.sink
	}
	rc.s.elem = dst
	return rc
}

// SendCase returns a case that sends v. Select reports ErrClosed for it if
// c is closed.
func (c *Chan[T]) SendCase(v T) SelectCase {
	sc := &sendCase[T]{c: c, v: v}
	sc.s.elem = &sc.v
	return sc
}

// selectPoll is the outcome of SelectCase.poll.
type selectPoll uint8

const (
	// pollNotReady: the case cannot proceed now (or its channel is nil);
	// nothing was done.
	pollNotReady selectPoll = iota
	// pollDone: the case proceeded (its value moved, or it found its
	// channel closed: the error says so); the Select is over.
	pollDone
	// pollCancelled: the selecting job was seen cancelled under the case's
	// mutex; nothing was done, and the Select ends with the job's
	// cancellation error.
	pollCancelled
)

// poll is SelectCase.poll for a case on c (nil: never ready) that sends
// *v (send) or receives into *v: the case is tried under c.mu alone, with
// j's cancellation checked there first (see cancelSeen).
func (c *Chan[T]) poll(j *Job, v *T, send bool) (selectPoll, error) {
	if c == nil {
		return pollNotReady, nil
	}
	c.mu.Lock()
	if j != nil && j.cancelSeen() {
		c.mu.Unlock()
		return pollCancelled, nil
	}
	var (
		done bool
		err  error
		wake *chanWaiter
	)
	if send {
		done, err, wake = c.sendLocked(v)
	} else {
		done, err, wake = c.recvLocked(v)
	}
	if !done {
		c.mu.Unlock()
		return pollNotReady, nil
	}
	c.unlockWake(wake)
	return pollDone, err
}

type recvCase[T any] struct {
	c    *Chan[T]
	s    sudog[T]
	sink T
}

func (rc *recvCase[T]) mutex() *sync.Mutex              { return chanMutex(rc.c) }
func (rc *recvCase[T]) buffered() bool                  { return rc.c.Cap() > 0 }
func (rc *recvCase[T]) poll(j *Job) (selectPoll, error) { return rc.c.poll(j, rc.s.elem, false) }
func (rc *recvCase[T]) tryLocked() (bool, error, *chanWaiter) {
	return rc.c.recvLocked(rc.s.elem)
}
func (rc *recvCase[T]) enqueueLocked(w *chanWaiter, idx uint32) {
	rc.s.w, rc.s.idx, rc.s.closed = w, idx, false
	rc.c.recvq.push(&rc.s)
}
func (rc *recvCase[T]) dequeueLocked() error { return rc.c.dequeueLocked(&rc.s) }

type sendCase[T any] struct {
	c *Chan[T]
	s sudog[T]
	v T
}

func (sc *sendCase[T]) mutex() *sync.Mutex              { return chanMutex(sc.c) }
func (sc *sendCase[T]) buffered() bool                  { return sc.c.Cap() > 0 }
func (sc *sendCase[T]) poll(j *Job) (selectPoll, error) { return sc.c.poll(j, sc.s.elem, true) }
func (sc *sendCase[T]) tryLocked() (bool, error, *chanWaiter) {
	return sc.c.sendLocked(sc.s.elem)
}
func (sc *sendCase[T]) enqueueLocked(w *chanWaiter, idx uint32) {
	sc.s.w, sc.s.idx, sc.s.closed = w, idx, false
	sc.c.sendq.push(&sc.s)
}
func (sc *sendCase[T]) dequeueLocked() error { return sc.c.dequeueLocked(&sc.s) }

func chanMutex[T any](c *Chan[T]) *sync.Mutex {
	if c == nil {
		return nil
	}
	return &c.mu
}

// dequeueLocked takes s off its queue if it is still there and returns the
// outcome of s had it completed: the close error if a Close completed it.
func (c *Chan[T]) dequeueLocked(s *sudog[T]) error {
	if s.q != nil {
		s.q.remove(s)
	}
	if s.closed {
		return c.closed
	}
	return nil
}

// Select waits until one of the cases can proceed, performs it, and returns
// its index: a receive has stored its value, a send has delivered its value;
// err is the close error if the chosen case found its channel closed (a
// receive only once it is drained). When several cases are ready, one is
// chosen at random. The wait is cancellable through j (nil from a plain
// goroutine): if j is cancelled first, Select returns -1 and j's
// cancellation error and no case is performed. With no case on a non-nil
// channel, Select waits for j's cancellation; where nothing can end that
// wait (j is nil, or j is terminal and was not cancelled) it returns -1
// and ErrWouldBlock rather than block forever. A case value given
// twice is refused: Select returns -1 and an error matching
// ErrRepeatedCase, performs nothing and leaves nothing queued (distinct
// cases on one channel are fine).
//
// Cost: Select first tries the cases one at a time, in the random order,
// each under its own channel's mutex alone, and returns with the first
// that proceeds: one lock when that case is ready. Only when none is does
// it lock the cases' channels together (in address order, so concurrent
// Selects cannot deadlock) to look again and, if it must wait, to queue;
// then once more to leave the queues.
func Select(j *Job, cases ...SelectCase) (int, error) { return selectCases(j, cases, true) }

// TrySelect performs one ready case like Select, or returns -1 and
// ErrWouldBlock if none is ready; a repeated case is ErrRepeatedCase.
func TrySelect(cases ...SelectCase) (int, error) { return selectCases(nil, cases, false) }

func selectCases(j *Job, cases []SelectCase, block bool) (int, error) {
	if err := repeatedCase(j, cases); err != nil {
		return -1, err
	}
	n := len(cases)
	start := 0
	if n > 1 {
		start = int(goruntime.CheapRandN(uint32(n)))
	}
	// The first pass: each case under its own channel's mutex. A case that
	// proceeds here is performed exactly as in the locked pass below, at
	// the moment its mutex is held (and checks j's cancellation there, as
	// Send and Recv do), so the Select takes effect at that moment. A case
	// that is not ready proves nothing about the others at another moment,
	// so "none is ready" is only concluded under every mutex at once.
	for k := range n {
		i := start + k
		if i >= n {
			i -= n
		}
		if cases[i] == nil {
			continue
		}
		switch r, err := cases[i].poll(j); r {
		case pollDone:
			return i, err
		case pollCancelled:
			return -1, j.cancelledErr()
		}
	}
	window(winSelectLocked, j)
	var buf [4]*sync.Mutex
	locks := buf[:0]
	for _, c := range cases {
		if c != nil && c.mutex() != nil {
			locks = append(locks, c.mutex())
		}
	}
	slices.SortFunc(locks, func(a, b *sync.Mutex) int {
		return cmp.Compare(uintptr(unsafe.Pointer(a)), uintptr(unsafe.Pointer(b)))
	})
	locks = slices.Compact(locks)
	lockAll(locks)
	if j != nil && j.cancelSeen() { // under the channels' mutexes: see cancelSeen
		unlockAll(locks)
		return -1, j.cancelledErr()
	}
	if n > 0 {
		for k := range n {
			i := (start + k) % n
			if cases[i] == nil || cases[i].mutex() == nil {
				continue
			}
			if done, err, wake := cases[i].tryLocked(); done {
				unlockAll(locks)
				if wake != nil {
					wake.unpark()
				}
				return i, err
			}
		}
	}
	if !block || len(locks) == 0 && (j == nil || j.terminal()) { // a terminal j is never cancelled: cancelSeen said so above
		unlockAll(locks)
		return -1, ErrWouldBlock
	}
	batch := false
	for _, c := range cases {
		if c != nil && c.mutex() != nil && c.buffered() {
			batch = true
			break
		}
	}
	w := newChanWaiter(j, batch)
	for i, c := range cases {
		if c != nil && c.mutex() != nil {
			c.enqueueLocked(w, uint32(i))
		}
	}
	unlockAll(locks)
	reason, private := w.wait()
	chosen, err := -1, error(nil)
	lockAll(locks)
	for i, c := range cases {
		if c != nil && c.mutex() != nil {
			if j != nil && reason != wakeCase+uint32(i) && j.rt.faults.has(faultSelectNoCleanup) {
				continue
			}
			if cerr := c.dequeueLocked(); reason == wakeCase+uint32(i) {
				chosen, err = i, cerr
			}
		}
	}
	unlockAll(locks)
	if private && (j == nil || !j.rt.faults.has(faultSelectNoCleanup)) {
		putChanWaiter(w) // every sudog of w is off its queue
	}
	if chosen < 0 {
		return -1, j.cancelledErr()
	}
	return chosen, err
}

// repeatedCase returns an error matching ErrRepeatedCase if one case value
// appears twice in cases: its one wait node cannot be on a queue twice.
// Cost: len(cases)² / 2 pointer comparisons, one for the usual two cases.
func repeatedCase(j *Job, cases []SelectCase) error {
	for a := 1; a < len(cases); a++ {
		if cases[a] == nil {
			continue
		}
		for b := range a {
			if cases[a] == cases[b] {
				if j != nil && j.rt.faults.has(faultSelectRepeatAllowed) {
					return nil
				}
				return fmt.Errorf("%w: cases %d and %d are the same", ErrRepeatedCase, b, a)
			}
		}
	}
	return nil
}

func lockAll(locks []*sync.Mutex) {
	for _, mu := range locks {
		mu.Lock()
	}
}

func unlockAll(locks []*sync.Mutex) {
	for _, mu := range locks {
		mu.Unlock()
	}
}
