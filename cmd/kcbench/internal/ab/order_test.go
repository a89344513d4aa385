package ab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Alternate with two sides is ABBA; with more, every side takes every
// place equally often over 2n rounds, and every round runs each side
// once. Fixed never changes.
func TestOrderSides(t *testing.T) {
	var two []string
	for round := range 4 {
		two = append(two, fmt.Sprint(Alternate.sides(round, 2)))
	}
	if want := []string{"[0 1]", "[1 0]", "[0 1]", "[1 0]"}; !slices.Equal(two, want) {
		t.Errorf("Alternate, 2 sides: got %v; want %v", two, want)
	}
	for n := 2; n <= 5; n++ {
		count := make([][]int, n) // [side][place]
		for i := range count {
			count[i] = make([]int, n)
		}
		for round := range 2 * n {
			got := Alternate.sides(round, n)
			if s := slices.Sorted(slices.Values(got)); !slices.Equal(s, Fixed.sides(0, n)) {
				t.Fatalf("Alternate, %d sides, round %d: got %v; want each side once", n, round, got)
			}
			for place, side := range got {
				count[side][place]++
			}
		}
		for side, c := range count {
			for place, k := range c {
				if k != 2 {
					t.Errorf("Alternate, %d sides: side %d took place %d %d times in %d rounds; want 2", n, side, place, k, 2*n)
				}
			}
		}
		if got := Fixed.sides(3, n); !slices.Equal(got, Fixed.sides(0, n)) {
			t.Errorf("Fixed, %d sides: round 3 %v differs from round 0 %v", n, got, Fixed.sides(0, n))
		}
	}
}

// Within a round the rows run by size, smallest first (unsized rows in
// their order before them), and side 0's process, which alone ran the
// op-count runs before round 1, is restarted before it: every process of
// every side runs the rows once, in that order.
func TestRunBySize(t *testing.T) {
	path := benchDriver(t, `echo "$$ $name" >>"$FAKE_LOG"; echo "ok 1000 100 0"`)
	dir := t.TempDir()
	var sides []*Driver
	for _, label := range []string{"A", "B"} {
		d, err := Start(path, label, []string{"FAKE_LOG=" + filepath.Join(dir, label+".log")})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		sides = append(sides, d)
	}
	rows := []string{"C/backend=a/n=100000", "A/backend=a", "B/backend=a/n=10", "D/backend=a"}
	if _, err := Run(context.Background(), Config{Rows: rows, Sides: sides, Rounds: 6, SampleTime: time.Millisecond, Respawn: 1}); err != nil {
		t.Fatal(err)
	}
	want := "A/backend=a D/backend=a B/backend=a/n=10 C/backend=a/n=100000"
	for _, label := range []string{"A", "B"} {
		b, err := os.ReadFile(filepath.Join(dir, label+".log"))
		if err != nil {
			t.Fatal(err)
		}
		var pids []string
		byPid := map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			pid, name, _ := strings.Cut(line, " ")
			if byPid[pid] == nil {
				pids = append(pids, pid)
			}
			byPid[pid] = append(byPid[pid], name)
		}
		if label == "A" {
			if len(pids) != 7 {
				t.Fatalf("side A: %d processes; want 7 (the op-count runs, then one per round)", len(pids))
			}
		} else if len(pids) != 6 {
			t.Fatalf("side B: %d processes; want 6, one per round", len(pids))
		}
		for _, pid := range pids {
			if got := strings.Join(byPid[pid], " "); got != want {
				t.Errorf("side %s, process %s ran %s; want %s", label, pid, got, want)
			}
		}
	}
}
