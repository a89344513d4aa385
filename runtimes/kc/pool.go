package kc

import (
	"errors"
	"sync"

	"github.com/kcbench/kcbench/internal/faults"
)

// Pool is an owned pool of at most max items (spec 05 "owned (pool)"
// channel): Get hands out a free item, creating one with the create hook
// while fewer than max exist, and otherwise waits, cancellably, for one to
// be put back or discarded; Put resets an item with the reset hook and
// returns it. Database connections and large buffers are the usual items.
//
// The pool holds max places: each is a free item, an item handed out, an
// item being created, or an empty place (a token on the slots channel).
// Get takes a free item or, failing that, an empty place and fills it with
// create; Discard and a create that fails or panics give the place back.
// A Get with neither waits on both channels at once (Select), so whatever
// frees a place first, a Put or a Discard, wakes it: no Get waits while a
// place is empty.
//
// The zero Pool is not usable; make one with NewPool. Its methods are safe
// for concurrent use. Cost: Get and Put of a free item take one channel
// operation (one mutex, no allocation); a Get that creates takes two, and
// one that waits allocates its two Select cases and wait node.
type Pool[T any] struct {
	free   *Chan[T]          // items ready to hand out; capacity max
	slots  *Chan[struct{}]   // empty places, one token each; capacity max, full at first
	create func() (T, error) // immutable
	reset  func(T)           // immutable; may be nil

	mu      sync.Mutex
	created int // items made by create and not discarded; under mu
}

// ErrPoolFull is returned by Put when the pool already holds max free
// items: the item put was not made by this pool, or was put twice.
var ErrPoolFull = errors.New("kc: pool is full")

// NewPool returns a pool of at most max items made by create; reset, if not
// nil, prepares an item for reuse when it is put back. A non-positive max
// is ErrBadCapacity; a nil create is ErrNilBody.
func NewPool[T any](max int, create func() (T, error), reset func(T)) (*Pool[T], error) {
	if max <= 0 {
		return nil, ErrBadCapacity
	}
	if create == nil {
		return nil, ErrNilBody
	}
	free, err := NewChan[T](max)
	if err != nil {
		return nil, err
	}
	slots, err := NewChan[struct{}](max)
	if err != nil {
		return nil, err
	}
	for range max {
		slots.TrySend(struct{}{})
	}
	return &Pool[T]{free: free, slots: slots, create: create, reset: reset}, nil
}

// Get returns a free item, creating one if none is free and fewer than max
// exist, else waiting for a Put or a Discard. The wait is cancellable
// through j (nil from a plain goroutine) like Chan.Recv. An error from
// create is returned as is, and the item does not count.
func (p *Pool[T]) Get(j *Job) (T, error) {
	if v, err := p.free.TryRecv(); err == nil {
		return v, nil
	}
	if _, err := p.slots.TryRecv(); err == nil {
		return p.fill()
	}
	var v T
	if j != nil && j.rt.faults&faults.PoolGetIgnoresDiscard != 0 {
		return p.free.Recv(j)
	}
	i, err := Select(j, p.free.RecvCase(&v), p.slots.RecvCase(nil))
	switch {
	case err != nil:
		var zero T
		return zero, err
	case i == 1:
		return p.fill()
	}
	return v, nil
}

// fill makes a new item in an empty place taken from slots; if create
// fails or panics, it gives the place back, waking a waiting Get.
func (p *Pool[T]) fill() (v T, err error) {
	made := false
	defer func() {
		if !made {
			p.slots.TrySend(struct{}{})
		}
	}()
	if v, err = p.create(); err != nil {
		return v, err
	}
	made = true
	p.mu.Lock()
	p.created++
	p.mu.Unlock()
	return v, nil
}

// Put resets v and makes it free again, waking a waiting Get. It never
// blocks: a pool that already holds max free items returns ErrPoolFull.
func (p *Pool[T]) Put(v T) error {
	if p.reset != nil {
		p.reset(v)
	}
	if err := p.free.TrySend(v); err != nil {
		return ErrPoolFull
	}
	return nil
}

// Discard gives up an item handed out by Get (a broken connection, say):
// it no longer counts, and its place is free for a new one, which a Get
// already waiting, or the next one, creates. Discard with no item made
// does nothing.
func (p *Pool[T]) Discard() {
	p.mu.Lock()
	if p.created == 0 {
		p.mu.Unlock()
		return
	}
	p.created--
	p.mu.Unlock()
	p.slots.TrySend(struct{}{}) // never full: the discarded item held this place
}

// Len returns the number of free items.
func (p *Pool[T]) Len() int { return p.free.Len() }

// Waiting returns how many Gets wait for an item.
func (p *Pool[T]) Waiting() int {
	_, n := p.free.Blocked()
	return n
}

// Created returns how many items exist, free or handed out.
func (p *Pool[T]) Created() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.created
}

// SendTask starts body as an Async child of j and sends its handle on ch:
// spec 05's ordered task channel (chan_send_task). Receivers that await the
// handles in the order they arrive (RecvTask) get the results in send
// order, whatever order the tasks finish in. If the send fails (ch closed,
// or j cancelled while ch is full), the task is cancelled and joined before
// SendTask returns the send's error: no task is orphaned.
func SendTask[T any](j *Job, ch *Chan[*Deferred[T]], body func(j *Job) (T, error)) error {
	d, err := Async(j, body)
	if err != nil {
		return err
	}
	if err := ch.Send(j, d); err != nil {
		d.job.Cancel(err)
		if d.job.claim() {
			d.job.run(nil) // not started: end it here rather than wait for a worker
		}
		d.job.wait(nil, waitTerminal, 0, true)
		return err
	}
	return nil
}

// RecvTask receives the next task handle from ch and awaits it, returning
// its value; both waits are cancellable through j. Once ch is closed and
// drained it returns ErrClosed.
func RecvTask[T any](j *Job, ch *Chan[*Deferred[T]]) (T, error) {
	d, err := ch.Recv(j)
	if err != nil {
		var zero T
		return zero, err
	}
	return d.Await(j)
}
