package kc_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestSelectCancelledWithReadyCases: a Select by a cancelled job returns
// -1 and the cancellation error and performs nothing, even though every
// case is ready, whichever case it tries first (the random start varies
// over the rounds): the check is made under each case's channel mutex
// before that case is tried.
func TestSelectCancelledWithReadyCases(t *testing.T) {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	recvA, _ := kc.NewChan[int](1)
	recvB, _ := kc.NewChan[int](1)
	sendC, _ := kc.NewChan[int](1)
	for _, c := range []*kc.Chan[int]{recvA, recvB} {
		if err := c.TrySend(1); err != nil {
			t.Fatal(err)
		}
	}
	errCause := errors.New("cause")
	err := rt.Run(context.Background(), func(j *kc.Job) error {
		j.Cancel(errCause)
		var a, b int
		cases := []kc.SelectCase{recvA.RecvCase(&a), recvB.RecvCase(&b), sendC.SendCase(3)}
		for round := range 100 {
			i, err := kc.Select(j, cases...)
			if i != -1 || !errors.Is(err, kc.ErrCancelled) || !errors.Is(err, errCause) {
				return fmt.Errorf("round %d: Select by a cancelled job: got %d, %v; want -1 and the cancellation", round, i, err)
			}
		}
		return nil
	})
	if !errors.Is(err, kc.ErrCancelled) {
		t.Errorf("Run: got %v; want the root cancelled", err)
	}
	if err != nil && !errors.Is(err, errCause) {
		t.Error(err)
	}
	for name, c := range map[string]*kc.Chan[int]{"recvA": recvA, "recvB": recvB} {
		if n := c.Len(); n != 1 {
			t.Errorf("%s holds %d values after the cancelled Selects; want 1 (nothing received)", name, n)
		}
	}
	if n := sendC.Len(); n != 0 {
		t.Errorf("sendC holds %d values after the cancelled Selects; want 0 (nothing sent)", n)
	}
}

// TestSelectChoosesAmongReady: when several cases are ready, each is
// chosen some of the time (the random start of the first pass).
func TestSelectChoosesAmongReady(t *testing.T) {
	const cases, rounds = 3, 3000
	var cs [cases]*kc.Chan[int]
	for i := range cs {
		cs[i], _ = kc.NewChan[int](1)
	}
	var v [cases]int
	sel := make([]kc.SelectCase, cases)
	for i, c := range cs {
		sel[i] = c.RecvCase(&v[i])
	}
	var chosen [cases]int
	for range rounds {
		for _, c := range cs {
			if c.Len() == 0 {
				if err := c.TrySend(1); err != nil {
					t.Fatal(err)
				}
			}
		}
		i, err := kc.Select(nil, sel...)
		if err != nil || i < 0 || i >= cases {
			t.Fatalf("Select over ready cases: got %d, %v", i, err)
		}
		chosen[i]++
	}
	for i, k := range chosen {
		// Each case is chosen a third of the time on average (1000 times);
		// fewer than 500 has a probability far below 1e-9.
		if k < rounds/cases/2 {
			t.Errorf("case %d chosen %d times in %d Selects over %d ready cases; want about %d", i, k, rounds, cases, rounds/cases)
		}
	}
}

// TestSelectNoCaseTerminalJob: a Select with no case on a non-nil channel
// by a job that is already terminal and was not cancelled can never end
// (nothing will cancel that job), so it returns -1 and ErrWouldBlock
// instead of blocking for ever; by a terminal cancelled job it returns the
// cancellation.
func TestSelectNoCaseTerminalJob(t *testing.T) {
	rt := kc.New(goroutine.New())
	defer rt.Close()
	var done, cancelled *kc.Job
	if err := rt.Run(context.Background(), func(j *kc.Job) error {
		done, _ = j.Launch(func(*kc.Job) error { return nil })
		cancelled, _ = j.Launch(func(c *kc.Job) error { c.Cancel(nil); return c.Check() })
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var nilChan *kc.Chan[int]
	var v int
	for _, tc := range []struct {
		name string
		job  *kc.Job
		want error
	}{
		{"completed", done, kc.ErrWouldBlock},
		{"cancelled", cancelled, kc.ErrCancelled},
	} {
		res := make(chan error, 1)
		go func() {
			_, err := kc.Select(tc.job, nilChan.RecvCase(&v))
			res <- err
		}()
		select {
		case err := <-res:
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: Select with no usable case: got %v; want %v", tc.name, err, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: Select with no usable case by a terminal job still blocked after 5s", tc.name)
		}
	}
}
