package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/ab"
	"github.com/kcbench/kcbench/cmd/kcbench/internal/paired"
)

// writeRawFile writes v as a -raw file and returns its path.
func writeRawFile(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "raw.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rawPairs returns n pairs whose B is A times ratio, A rising from 100.
func rawPairs(n int, ratio float64) []paired.Pair {
	out := make([]paired.Pair, n)
	for i := range out {
		a := 100 + float64(i)
		out[i] = paired.Pair{A: a, B: a * ratio}
	}
	return out
}

// rawFile is the shape of a -raw file.
type rawFile struct {
	Rows      []string
	Slowdowns []float64
	Trials    []map[string]any
}

// calibrate -ab -from-raw refuses a raw file whose trials do not hold one
// list of pairs per row and slowdown: bad input (exit 2) naming the file,
// never a panic.
func TestCalibrateFromRawMalformed(t *testing.T) {
	p := rawPairs(30, 1)
	for name, raw := range map[string]rawFile{
		"trials without rows": {Rows: []string{"X"}, Trials: []map[string]any{{"AA": [][]paired.Pair{}}, {"AA": [][]paired.Pair{}}}},
		"trial without the slowdown": {Rows: []string{"X"}, Slowdowns: []float64{0.1},
			Trials: []map[string]any{{"AA": [][]paired.Pair{p}}}},
		"slowdown without the row": {Rows: []string{"X", "Y"}, Slowdowns: []float64{0.1},
			Trials: []map[string]any{{"AA": [][]paired.Pair{p, p}, "Slowed": [][][]paired.Pair{{p}}}}},
		"negative slowdown": {Rows: []string{"X"}, Slowdowns: []float64{-0.1},
			Trials: []map[string]any{{"AA": [][]paired.Pair{p}, "Slowed": [][][]paired.Pair{{p}}}}},
	} {
		t.Run(name, func(t *testing.T) {
			path := writeRawFile(t, raw)
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("calibrate -ab -from-raw panicked: %v", r)
				}
			}()
			out, _, code, msg := runErr("calibrate", "-ab", "-from-raw", path)
			if code != 2 || !strings.Contains(msg, path+": trials do not match the rows and slowdowns") || out != "" {
				t.Errorf("exit %d, %q; want exit 2 naming the file and the mismatch\n%s", code, msg, out)
			}
		})
	}
}

// calibrate -ab -from-raw gives saved pairs the verdict measured ones get:
// exit 1 when the A/B gate cannot be trusted (every A/A trial raised a
// false alarm here; in the json format too), 0 when it can (no false
// alarm, the slowdown detected in every trial).
func TestCalibrateFromRawVerdict(t *testing.T) {
	alarms := writeRawFile(t, rawFile{Rows: []string{"JobCreate/backend=stealing"},
		Trials: slices.Repeat([]map[string]any{{"AA": [][]paired.Pair{rawPairs(30, 1.2)}}}, 4)})
	for _, format := range []string{"text", "json"} {
		out, _, code, msg := runErr("calibrate", "-ab", "-from-raw", alarms, "-format", format)
		if code != 1 || !strings.Contains(msg, "cannot be trusted") {
			t.Errorf("-format %s, 4 false alarms in 4 trials: exit %d, %q; want 1\n%s", format, code, msg, out)
		}
		if format == "text" && !strings.Contains(out, "A/A false alarms: 4 (100.0%)") {
			t.Errorf("output:\n%s", out)
		}
	}
	wobble := func(ratio float64) [][]paired.Pair {
		ps := rawPairs(30, ratio)
		for i := range ps {
			ps[i].B *= 1 + 0.01*float64(i%5-2)
		}
		return [][]paired.Pair{ps}
	}
	good := writeRawFile(t, rawFile{Rows: []string{"JobCreate/backend=stealing"}, Slowdowns: []float64{0.2},
		Trials: slices.Repeat([]map[string]any{{"AA": wobble(1), "Slowed": [][][]paired.Pair{wobble(1.2)}}}, 4)})
	if out, _, code, msg := runErr("calibrate", "-ab", "-from-raw", good); code != 0 || !strings.Contains(out, "slowdown +20%: detected 4 (100.0%)") {
		t.Errorf("a trustworthy calibration: exit %d, %q\n%s", code, msg, out)
	}
}

// A trial takes each row's A/A pairs from sides 0 and 1 and slowdown k's
// from sides 0 and 2+k, with side 0's values as A.
func TestTrialPut(t *testing.T) {
	tr := newTrial(2, 2)
	for i := range 2 {
		base := float64(100 * (i + 1))
		tr.put(i, &ab.RowResult{Ns: [][]float64{{base}, {base + 1}, {base + 2}, {base + 3}}})
	}
	for i := range 2 {
		base := float64(100 * (i + 1))
		if got := tr.AA[i][0]; got != (paired.Pair{A: base, B: base + 1}) {
			t.Errorf("row %d: A/A pair %v; want {%v %v}", i, got, base, base+1)
		}
		for k := range 2 {
			if got := tr.Slowed[k][i][0]; got != (paired.Pair{A: base, B: base + 2 + float64(k)}) {
				t.Errorf("row %d, slowdown %d: pair %v; want {%v %v}", i, k, got, base, base+2+float64(k))
			}
		}
	}
}
