package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
