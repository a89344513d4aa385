//go:build kcslow

package kcslow

import "testing"

func TestSpinCountsAndSpins(t *testing.T) {
	if !On {
		t.Fatal("On is false under the kcslow tag")
	}
	oldSteps, oldCounting := nsteps, counting
	defer func() { nsteps, counting = oldSteps, oldCounting }()
	nsteps, counting = 0, true
	before := Hits()
	for range 10 {
		Spin()
	}
	if got := Hits() - before; got != 10 {
		t.Errorf("Hits advanced by %d after 10 counted calls; want 10", got)
	}
	counting = false
	Spin()
	if got := Hits() - before; got != 10 {
		t.Errorf("an uncounted call moved Hits to +%d; want 10", got)
	}
	if parse("steps", "250") != 250 {
		t.Errorf("parse(250) = %d", parse("steps", "250"))
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("parse accepted -1")
			}
		}()
		parse("steps", "-1")
	}()
}

// TestSpinTakesLonger checks that the injected steps are executed: 2^20
// steps take far longer than none (a dependent chain of about 1.5 ns a
// step; the bound is three orders of magnitude looser than that).
func TestSpinTakesLonger(t *testing.T) {
	oldSteps, oldCounting := nsteps, counting
	defer func() { nsteps, counting = oldSteps, oldCounting }()
	counting = false
	nsteps = 1 << 20
	r := testing.Benchmark(func(b *testing.B) {
		for range b.N {
			Spin()
		}
	})
	if ns := r.NsPerOp(); ns < 1<<20/1000 {
		t.Errorf("Spin with %d steps took %d ns; want >= %d", nsteps, ns, 1<<20/1000)
	}
}
