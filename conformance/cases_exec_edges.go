package conformance

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// execEdgeCases check the core's side of the executor contract: the
// releases a worker that runs many tasks in a row batches (with a
// detached task among them), and the hints each Parker gives Park.
func execEdgeCases() []Case {
	return []Case{
		mk("DetachedChildAmongSiblings", "DESIGN Detached; 05 worker batching", detachedChildAmongSiblings),
		mk("ParkHints", "DESIGN Backends: the Parker hints (Worker, Quick, Batch) the core gives Park", parkHintsCase),
	}
}

// A job whose body launches short attached children and one detached child
// that sleeps until cancelled ends as soon as its body and its attached
// children are done: its Join returns without the detached child's end.
// The children are launched in a row so that an executor that runs many
// tasks on one goroutine runs them one after the other, the detached one
// first in some rounds and last in others; a runtime that keeps the
// parent's releases of the attached children batched on a goroutine that
// then runs (and parks) the detached child, which does not hold the
// parent, delays the parent's end until the detached child ends: the Join
// hangs until the case cancels the detached child.
func detachedChildAmongSiblings(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		for round := range 16 {
			var det atomic.Pointer[kc.Job]
			pj, err := j.Launch(func(pj *kc.Job) error {
				launchDet := func() {
					d, err := pj.Launch(sleeper, kc.Detached())
					if p.job("Launch Detached()", d, err) {
						det.Store(d)
					}
				}
				if round%2 == 0 {
					launchDet()
				}
				for range 8 {
					_, err := pj.Launch(nop)
					p.noErr("Launch", err)
				}
				if round%2 == 1 {
					launchDet()
				}
				return nil
			})
			if !p.job("Launch parent", pj, err) {
				return nil
			}
			cancelDet := func() {
				if d := det.Load(); d != nil {
					d.Cancel(nil)
				}
			}
			stop := p.deadman("Join of a job whose detached child sleeps", cancelDet)
			err = pj.Join(j)
			stop()
			p.noErr("Join of a job whose detached child sleeps", err)
			d := det.Load()
			if d == nil {
				return nil
			}
			p.state("the detached child after its parent's end", d, kc.Active)
			d.Cancel(nil)
			p.is("Join of the detached child", d.Join(j), kc.ErrCancelled)
			if p.err() != nil {
				return nil
			}
		}
		return nil
	}))
}

// hintExec lends an executor to a second Runtime (borrowed) and shows
// each Parker to onPark on the waiting goroutine before the lent executor
// parks it.
type hintExec struct {
	borrowed
	onPark atomic.Pointer[func(*kc.Parker)]
}

func (h *hintExec) Park(pk *kc.Parker) {
	if f := h.onPark.Load(); f != nil {
		(*f)(pk)
	}
	h.Executor.Park(pk)
}

// parkHints is what a Parker told the executor.
type parkHints struct{ worker, quick, batch bool }

func hintsOf(pk *kc.Parker) parkHints { return parkHints{pk.Worker(), pk.Quick(), pk.Batch()} }

// The hints each Parker gives the executor's Park: Worker is true for a
// wait made on behalf of a job and false for a plain goroutine's; Quick
// is true for a blocked channel operation and false for a wait on a job;
// Batch is true for a channel wait on a buffered channel only. (A plain
// goroutine's channel operation does not park through the executor.)
// Each wait is answered from within Park (the gate of the joined job
// closed, the value sent or received), so it parks once. An executor
// compensates for a blocked worker, spins and hands waits off by these
// hints: a core that reports a job's wait as an outside goroutine's
// leaves a backend with a fixed set of workers short of one, and one that
// gets Quick or Batch wrong makes it spin where it should not or hand off
// a wait it must not; one whose Spin reports a wake that has not come
// makes it skip that compensation, and one whose Spin misses a wake makes
// it block a worker that could have gone on.
func parkHintsCase(rt *kc.Runtime, p *probe) {
	hx := &hintExec{borrowed: borrowed{rt.Executor()}}
	var (
		mu     sync.Mutex
		parks  int
		got    []parkHints
		answer func()
	)
	hook := func(pk *kc.Parker) {
		mu.Lock()
		parks++
		a := answer
		if a != nil {
			got = append(got, hintsOf(pk))
			answer = nil
		}
		mu.Unlock()
		if a == nil {
			return
		}
		// Spin on a job wait only reports the wake: one load, no yield
		// (so no thread hand-off where the goroutine is locked).
		spin := !pk.Quick()
		if spin && pk.Spin() {
			p.failf("Spin of a wait nobody has answered yet: got true; want false")
		}
		a()
		if spin {
			deadline := time.Now().Add(stallBound)
			for !pk.Spin() {
				if time.Now().After(deadline) {
					p.failf("Spin of an answered wait: got false for %v; want true once the wake has come", stallBound)
					break
				}
				runtime.Gosched()
			}
		}
	}
	hx.onPark.Store(&hook)
	rt2 := kc.New(hx, kc.WithName(rt.Name()))
	// step arms answer for the next park, runs wait, and checks the hints
	// of that park. A wait that does not park is answered after stallBound.
	step := func(what string, want parkHints, ans func(), wait func() error) {
		mu.Lock()
		got, answer = nil, ans
		mu.Unlock()
		stop := p.deadman(what, func() {
			mu.Lock()
			a := answer
			answer = nil
			mu.Unlock()
			if a != nil {
				a() // the wait did not park: end it
			}
		})
		err := wait()
		stop()
		p.noErr(what, err)
		mu.Lock()
		defer mu.Unlock()
		answer = nil // still set if the wait did not park; the deadman may have taken it
		if len(got) == 0 {
			p.failf("%s: got no park; want one", what)
			return
		}
		eq(p, what+": hints of its park (worker, quick, batch)", got[0], want)
	}
	p.noErr("Run", rt2.Run(ctx, func(j *kc.Job) error {
		// Run's own wait for the root parks too: let it come first.
		p.waitUntil("Run's own wait to park", func() bool { mu.Lock(); defer mu.Unlock(); return parks >= 1 })

		gate := make(chan struct{})
		started := make(chan struct{})
		c, err := j.Launch(func(*kc.Job) error { close(started); <-gate; return nil })
		if !p.job("Launch", c, err) {
			close(gate)
			return nil
		}
		<-started
		step("Join of a running child by its parent", parkHints{worker: true}, func() { close(gate) },
			func() error { return c.Join(j) })

		gate2 := make(chan struct{})
		d, err := kc.Async(j, func(*kc.Job) (int, error) { <-gate2; return 1, nil })
		if !p.noErr("Async", err) {
			close(gate2)
			return nil
		}
		step("Await of a pending deferred from a plain goroutine", parkHints{}, func() { close(gate2) },
			func() error {
				res := make(chan error)
				go func() { _, err := d.Await(nil); res <- err }()
				return <-res
			})

		rdv, _ := kc.NewChan[int](0)
		step("Recv by a job on an unbuffered channel", parkHints{worker: true, quick: true},
			func() { p.noErr("TrySend answering the Recv", rdv.TrySend(1)) },
			func() error { _, err := rdv.Recv(j); return err })

		buf, _ := kc.NewChan[int](1)
		step("Recv by a job on an empty buffered channel", parkHints{worker: true, quick: true, batch: true},
			func() { p.noErr("TrySend answering the Recv", buf.TrySend(1)) },
			func() error { _, err := buf.Recv(j); return err })

		step("Select by a job on an unbuffered and a buffered channel", parkHints{worker: true, quick: true, batch: true},
			func() { p.noErr("TrySend answering the Select", rdv.TrySend(3)) },
			func() error {
				var v int
				_, err := kc.Select(j, rdv.RecvCase(&v), buf.RecvCase(&v))
				return err
			})
		return nil
	}))
	p.noErr("Close of the second runtime", rt2.Close())
}
