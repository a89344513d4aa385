package vcore

import (
	"context"
	"testing"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// Once nothing is active, sysmon blocks (no timer, no CPU) and the first
// Spawn wakes it again.
func TestSysmonSleepsWhenIdle(t *testing.T) {
	ex, err := New(Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(ex)
	defer rt.Close()
	for round := range 2 {
		if err := rt.Run(context.Background(), func(*kc.Job) error { return nil }); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second) // a watchdog, not a timing assertion
		for !ex.mon.idle.Load() {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: sysmon still awake 5 s after the last task", round)
			}
			time.Sleep(time.Millisecond)
		}
	}
}
