package runtimes_test

import (
	"strings"
	"testing"

	"github.com/kcbench/kcbench/conformance"
	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestConformance runs the whole conformance suite on every registered backend.
func TestConformance(t *testing.T) {
	for _, name := range runtimes.Names() {
		if strings.HasPrefix(name, testBackendPrefix) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			err := conformance.Test(func() (*kc.Runtime, error) { return runtimes.New(name) })
			if err == nil {
				return
			}
			if joined, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range joined.Unwrap() {
					t.Error(e)
				}
				return
			}
			t.Error(err)
		})
	}
}
