package conformance

import "github.com/kcbench/kcbench/runtimes/kc"

// A deferred's value is returned by every Await, pending or finished, from a
// job or from a plain goroutine.
func deferredAwaitSuccess(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		gate := make(chan struct{})
		d, err := kc.Async(j, func(*kc.Job) (string, error) { <-gate; return "payload", nil })
		if !p.noErr("Async", err) {
			return nil
		}
		go close(gate)
		v, err := d.Await(j)
		p.noErr("Await", err)
		eq(p, "Await value", v, "payload")
		p.state("deferred", d.Job(), kc.Completed)
		eq(p, "Deferred.State", d.State(), kc.Completed)
		p.noErr("deferred Result", d.Job().Result())
		v, err = d.Await(j)
		p.noErr("second Await", err)
		eq(p, "second Await value", v, "payload")
		ch := make(chan string)
		go func() { v, _ := d.Await(nil); ch <- v }()
		eq(p, "Await(nil) value", <-ch, "payload")
		return nil
	}))
}

// A failed deferred's Await returns the zero value and the failure, and the
// failure fails the deferred's parent although it was awaited.
func deferredFailure(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var d *kc.Deferred[*int]
		err := j.Scope(func(s *kc.Job) error {
			var err error
			d, err = kc.Async(s, func(*kc.Job) (*int, error) { x := 7; return &x, errBoom })
			if !p.noErr("Async", err) {
				return nil
			}
			v, err := d.Await(s)
			p.is("Await", err, errBoom)
			p.check(v == nil, "Await value: got %v; want the zero value (nil)", v)
			return nil
		})
		p.is("Scope (the deferred's parent)", err, errBoom)
		if d != nil {
			p.state("deferred", d.Job(), kc.Failed)
			v, err := d.Await(j)
			p.is("Await after the failure", err, errBoom)
			p.check(v == nil, "Await value after the failure: got %v; want nil", v)
		}
		return nil
	}))
}

// A cancelled waiter's pending Await returns ErrCancelled; the deferred goes on.
func cancelDuringAwait(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		p.awaitRunWaiter(rt)
		gate := make(chan struct{})
		d, err := kc.Async(j, func(*kc.Job) (int, error) { <-gate; return 1, nil })
		if !p.noErr("Async", err) {
			close(gate)
			return nil
		}
		defer close(gate)
		before := rt.Stats().WaitersRegistered
		var awaitErr error
		w, err := j.Launch(func(w *kc.Job) error {
			_, awaitErr = d.Await(w)
			return awaitErr
		})
		if !p.job("Launch waiter", w, err) {
			return nil
		}
		if !p.waitUntil("the waiter's Await to register", func() bool { return rt.Stats().WaitersRegistered > before }) {
			return nil
		}
		p.check(w.Cancel(errCause), "Cancel of the waiter: got false; want true")
		p.is("waiter Join", w.Join(j), kc.ErrCancelled)
		p.is("Await by the cancelled waiter", awaitErr, kc.ErrCancelled, errCause)
		p.state("awaited deferred", d.Job(), kc.Active)
		p.check(!d.Job().IsCancelled(), "awaited deferred: got IsCancelled true; want the deferred left running")
		return nil
	}))
}
