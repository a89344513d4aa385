package model

import (
	"testing"
	"time"

	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/kc"
)

func TestDbg(t *testing.T) {
	debug = true
	
	p, err := Generate(28, Config{})
	t.Log(err)
	_ = p
}

func TestDbgRun(t *testing.T) {
	for _, b := range []string{"goroutine", "stealing", "vcore"} {
		n, f, err := Fuzz(func() (*kc.Runtime, error) { return runtimes.New(b) }, 0, 2000, Config{Exclude: KnownOpen}, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if f != nil {
			t.Fatalf("%s after %d: %v\n%s", b, n, f, f.Program)
		}
		t.Logf("%s: %d ok", b, n)
	}
}
