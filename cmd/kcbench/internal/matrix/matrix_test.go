package matrix

import (
	"errors"
	"slices"
	"testing"
)

func TestFailingBackends(t *testing.T) {
	m := &Matrix{
		Backends: []string{"a", "b", "c"},
		Cases:    []string{"x", "y"},
		Cells: map[string][]Cell{
			"x": {{}, {Err: errors.New("boom")}, {}},
			"y": {{}, {Err: errors.New("boom")}, {Err: errors.New("bang")}},
		},
	}
	if got := m.FailingBackends(); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("FailingBackends() = %v, want [b c]", got)
	}
	if m.Failures() != 3 {
		t.Errorf("Failures() = %d, want 3", m.Failures())
	}
	m.Cells["x"][1].Err, m.Cells["y"][1].Err, m.Cells["y"][2].Err = nil, nil, nil
	if got := m.FailingBackends(); got != nil {
		t.Errorf("FailingBackends() = %v on a clean matrix", got)
	}
}
