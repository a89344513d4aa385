//go:build !kcslow

package kcslow

import "testing"

// TestOffByDefault checks that an ordinary build injects nothing: On must
// be the constant false that lets the compiler drop every call site.
func TestOffByDefault(t *testing.T) {
	if On {
		t.Fatal("On is true without the kcslow build tag")
	}
}
