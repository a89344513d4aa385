package kc

import (
	"testing"
	"time"
)

// TestSelectReadyCaseTakesOnlyItsMutex: Select's first pass tries each
// case under its own channel's mutex alone, so a ready case proceeds while
// another case's channel is locked by someone else. With b's mutex held,
// Selects over (ready a_i, b) that start with a_i (about half of them, by
// the random start) complete; the others wait for b's mutex and finish
// once it is released. A Select that locked every channel first would
// complete none while b is held.
func TestSelectReadyCaseTakesOnlyItsMutex(t *testing.T) {
	const n = 64
	b, _ := NewChan[int](1)
	var as [n]*Chan[int]
	for i := range as {
		as[i], _ = NewChan[int](1)
		if err := as[i].TrySend(i); err != nil {
			t.Fatal(err)
		}
	}
	type result struct {
		i, idx, v int
		err       error
	}
	results := make(chan result, n)
	check := func(r result) {
		if r.idx != 0 || r.err != nil || r.v != r.i {
			t.Errorf("Select %d: got case %d, value %d, %v; want case 0, value %d", r.i, r.idx, r.v, r.err, r.i)
		}
	}
	b.mu.Lock()
	for i := range as {
		go func() {
			var v, w int
			idx, err := Select(nil, as[i].RecvCase(&v), b.RecvCase(&w))
			results <- result{i, idx, v, err}
		}()
	}
	select {
	case r := <-results:
		check(r)
	case <-time.After(10 * time.Second):
		t.Error("no Select over a ready case completed while another case's channel was locked")
	}
	b.mu.Unlock()
	// b stays empty: the Selects that waited for its mutex find it not
	// ready and take their a_i.
	for range n - 1 {
		check(<-results)
	}
}
