package main

import (
	"fmt"
	"io"
	"time"

	"github.com/kcbench/kcbench/conformance/model"
	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// fuzzOptions are conform's flags for the random checker.
type fuzzOptions struct {
	programs int           // -fuzz: programs per backend
	seed     uint64        // -seed: the first program's seed
	exclude  model.Exclude // -exclude: known-open defects left out
	shrink   bool          // -shrink: shrink a failing program
	watchdog time.Duration // per program
}

// runFuzz checks o.programs random programs (package conformance/model) on
// each backend, stopping a backend at its first mismatch, which it shrinks
// and prints with its seed. The error wraps ErrConformance if any backend
// failed.
func runFuzz(stdout io.Writer, backendList string, o fuzzOptions) error {
	backends, err := parseBackends(backendList)
	if err != nil {
		return err
	}
	failed := 0
	cfg := model.Config{Exclude: o.exclude}
	for _, b := range backends {
		newRT := func() (*kc.Runtime, error) { return runtimes.New(b) }
		start := time.Now()
		n, f, err := model.Fuzz(newRT, o.seed, o.programs, cfg, o.watchdog)
		if err != nil {
			return err
		}
		if f == nil {
			fmt.Fprintf(stdout, "%s: %d programs (seeds %d..%d, excluded: %v), 0 mismatches, %v\n",
				b, n, o.seed, o.seed+uint64(n)-1, o.exclude, time.Since(start).Round(time.Millisecond))
			continue
		}
		failed++
		fmt.Fprintf(stdout, "%s: FAIL after %d programs\n%v\n", b, n, f)
		if o.shrink {
			f = model.Shrink(newRT, f, o.exclude, min(o.watchdog, 2*time.Second), 3)
			fmt.Fprintf(stdout, "shrunk program (mismatches: %d):\n", len(f.Mismatches))
		} else {
			fmt.Fprintf(stdout, "program:\n")
		}
		fmt.Fprintf(stdout, "%s", f.Program)
		fmt.Fprintf(stdout, "replay: kcbench conform -backends %s -fuzz 1 -seed %d -exclude %v\n\n", b, f.Seed, o.exclude)
	}
	if failed > 0 {
		return failure(fmt.Errorf("%w: random programs disagree with the model on %d of %d backends", ErrConformance, failed, len(backends)))
	}
	return nil
}
