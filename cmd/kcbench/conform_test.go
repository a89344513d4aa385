package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/matrix"
)

// A fixed matrix, rendered in both formats, against golden files.
func TestConformRenderGolden(t *testing.T) {
	m := &matrix.Matrix{
		Backends: []string{"goroutine", "stealing"},
		Cases:    []string{"ScopeThreeChildren", "ChildFailureCancelsSiblings"},
		Specs:    map[string]string{"ScopeThreeChildren": "01 §4.18 row 1", "ChildFailureCancelsSiblings": "01 §4.18 row 2"},
		Cells: map[string][]matrix.Cell{
			"ScopeThreeChildren": {{Duration: 1234567 * time.Nanosecond}, {Duration: 2 * time.Millisecond}},
			"ChildFailureCancelsSiblings": {{Duration: 999 * time.Microsecond},
				{Err: fmt.Errorf("ChildFailureCancelsSiblings: sibling state = Completed; want Cancelled"), Duration: 20 * time.Second}},
		},
	}
	for _, format := range matrix.Formats {
		for _, times := range []bool{true, false} {
			var out bytes.Buffer
			if err := matrix.Render(&out, m, format, times); err != nil {
				t.Fatal(err)
			}
			golden(t, fmt.Sprintf("conform-%s-times=%v.golden", format, times), out.String(), *update)
		}
	}
	if err := matrix.Render(new(bytes.Buffer), m, "html", false); err == nil {
		t.Error("Render(html) succeeded; want an unknown-format error")
	}
}

// The real suite on the reference backend passes, and exits 0.
func TestConformGoroutine(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(&out, &errOut, []string{"conform", "-backends", "goroutine", "-times=false"})
	if err != nil {
		t.Fatalf("conform: %v\n%s%s", err, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), " 0 failed") {
		t.Errorf("output has no \" 0 failed\" summary:\n%s", out.String())
	}
}

func TestConformBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"conform", "-backends", "nosuch"},
		{"conform", "-backends", ","},
		{"conform", "-run", "("},
		{"conform", "-run", "^NoSuchCase$"},
		{"conform", "-format", "html"},
		{"conform", "-watchdog", "0s"},
		{"conform", "extra"},
	} {
		err := run(new(bytes.Buffer), new(bytes.Buffer), args)
		if code := exitCode(err); code != exitUsage {
			t.Errorf("%q: exit %d (%v); want %d", args, code, err, exitUsage)
		}
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%q: error %v does not match ErrUsage", args, err)
		}
	}
}

// The random checker on the reference backend, with the known-open
// defects excluded, passes and says so.
func TestConformFuzz(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(&out, &errOut, []string{"conform", "-backends", "goroutine", "-fuzz", "50", "-seed", "7", "-exclude", "known"})
	if err != nil {
		t.Fatalf("conform -fuzz: %v\n%s%s", err, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "goroutine: 50 programs (seeds 7..56") || !strings.Contains(out.String(), " 0 mismatches") {
		t.Errorf("output has no summary of 50 programs and 0 mismatches:\n%s", out.String())
	}
}

func TestConformFuzzBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"conform", "-fuzz", "-1"},
		{"conform", "-fuzz", "5", "-exclude", "NoSuchDefect"},
		{"conform", "-fuzz", "5", "-backends", "nosuch"},
		{"conform", "-fuzz", "5", "-watchdog", "0s"},
	} {
		err := run(new(bytes.Buffer), new(bytes.Buffer), args)
		if code := exitCode(err); code != exitUsage {
			t.Errorf("%q: exit %d (%v); want %d", args, code, err, exitUsage)
		}
	}
}
