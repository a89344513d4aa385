package report

import (
	"math"
	"strings"
	"testing"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
)

func TestPairsByRound(t *testing.T) {
	a := &results.Series{Values: []float64{1, 2, 3, 4}}
	b := &results.Series{Values: []float64{10, 20, 30}} // failed in round 4
	got := pairsByRound(a, b)
	if len(got) != 3 || got[0].A != 1 || got[0].B != 10 || got[2].A != 3 || got[2].B != 30 {
		t.Errorf("pairsByRound = %v; want rounds 1-3 paired", got)
	}
}

func TestRatioCell(t *testing.T) {
	ref := &results.Series{Values: []float64{100, 210, 105, 190, 98, 205, 101, 199}}
	cur := &results.Series{Values: []float64{110, 232, 115, 209, 108, 224, 112, 218}}
	if got := ratioCell(ref, cur, 150, 165); !strings.HasPrefix(got, "1.10× (1.") || !strings.Contains(got, "MDE") {
		t.Errorf("8 rounds: %q; want the paired ratio 1.10× with its interval and MDE", got)
	}
	// Four rounds are too few for the paired interval: the ratio of the
	// medians, with the number of pairs.
	short := &results.Series{Values: cur.Values[:4]}
	if got, want := ratioCell(ref, short, 150, 165), "1.10× (n=4)"; got != want {
		t.Errorf("4 rounds: %q; want %q", got, want)
	}
}

func TestPercent(t *testing.T) {
	for f, want := range map[float64]string{0.034: "3.4%", 0.25: "25%", math.Inf(1): "∞", math.NaN(): "∞"} {
		if got := percent(f); got != want {
			t.Errorf("percent(%v) = %q; want %q", f, got, want)
		}
	}
}

// TestReportMDE checks that every sec/op row of the report comes with an
// MDE and every ratio to a peer with its interval.
func TestReportMDE(t *testing.T) {
	var b strings.Builder
	if err := Render(&b, load(t, "results.txt"), Options{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	secop, mde := 0, 0
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "| sec/op | "):
			secop++
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "| sec/op MDE | ") {
				mde++
			}
		case strings.HasPrefix(l, "| sec/op vs peer-"):
			for _, cell := range strings.Split(strings.Trim(l, "| "), " | ")[1:] {
				if cell != "1.00×" && cell != "—" && !strings.Contains(cell, "MDE") {
					t.Errorf("ratio without interval and MDE: %q in %q", cell, l)
				}
			}
		}
	}
	if secop == 0 || mde != secop {
		t.Errorf("%d sec/op rows, %d followed by an MDE row", secop, mde)
	}
}
