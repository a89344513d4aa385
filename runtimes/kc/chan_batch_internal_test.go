package kc

import (
	"context"
	"testing"
)

// TestChanWaitBatch checks which channel waits the core marks Batch (a
// blocked operation on a buffered channel, or a Select with a case on
// one) and that each is Quick: the executor's Park sees every wait of the
// root job's body, whose partner answers from within Park (the TrySend or
// TryRecv that answer holds), so every wait blocks once and in order.
func TestChanWaitBatch(t *testing.T) {
	type wait struct{ quick, batch bool }
	var got []wait
	var answer func() error
	ex := &spinExecutor{}
	ex.spin = func(p *Parker) {
		if !p.Worker() {
			return // Run's own wait for the root
		}
		got = append(got, wait{p.Quick(), p.Batch()})
		if err := answer(); err != nil {
			t.Errorf("answer in wait %d: %v", len(got), err)
		}
	}
	buf, _ := NewChan[int](2)
	rdv, _ := NewChan[int](0)
	sendTo := func(c *Chan[int]) func() error { return func() error { return c.TrySend(1) } }
	recvFrom := func(c *Chan[int]) func() error { return func() error { _, err := c.TryRecv(); return err } }
	rt := New(ex)
	err := rt.Run(context.Background(), func(j *Job) error {
		answer = sendTo(buf) // a Recv on an empty buffer
		if _, err := buf.Recv(j); err != nil {
			return err
		}
		for range buf.Cap() {
			if err := buf.TrySend(1); err != nil {
				return err
			}
		}
		answer = recvFrom(buf) // a Send on a full buffer
		if err := buf.Send(j, 2); err != nil {
			return err
		}
		for range buf.Cap() {
			if _, err := buf.TryRecv(); err != nil {
				return err
			}
		}
		answer = sendTo(rdv) // a Recv on a rendezvous channel
		if _, err := rdv.Recv(j); err != nil {
			return err
		}
		answer = recvFrom(rdv) // a Send on it
		if err := rdv.Send(j, 1); err != nil {
			return err
		}
		answer = sendTo(rdv) // a Select with one buffered case
		if _, err := Select(j, buf.RecvCase(nil), rdv.RecvCase(nil)); err != nil {
			return err
		}
		var nilChan *Chan[int]
		answer = sendTo(rdv) // a Select over rendezvous channels only (a nil one is never ready)
		if _, err := Select(j, rdv.RecvCase(nil), nilChan.RecvCase(nil)); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	want := []wait{{true, true}, {true, true}, {true, false}, {true, false}, {true, true}, {true, false}}
	if len(got) != len(want) {
		t.Fatalf("waits (quick, batch) = %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("wait %d (quick, batch) = %v; want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}
