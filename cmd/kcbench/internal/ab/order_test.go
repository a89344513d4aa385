package ab

import (
	"fmt"
	"slices"
	"testing"
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
