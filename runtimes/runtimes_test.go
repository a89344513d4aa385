package runtimes_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// Backends named with testBackendPrefix are registered by this package's tests; TestConformance
// leaves them out.
const testBackendPrefix = "zz-test-"

var (
	errRefused      = errors.New("refused")
	registerRefused sync.Once // Register panics on a second call (go test -count)
)

// TestNewConstructorError checks that a backend constructor's error is
// New's error (wrapped, so errors.Is still finds it) and that no runtime is
// made.
func TestNewConstructorError(t *testing.T) {
	registerRefused.Do(func() {
		runtimes.Register(testBackendPrefix+"refusing", func() (kc.Executor, error) { return nil, errRefused })
	})
	rt, err := runtimes.New("zz-test-refusing")
	if rt != nil || !errors.Is(err, errRefused) {
		t.Errorf(`New("zz-test-refusing"): got %v, %v; want nil and an error matching the constructor's`, rt, err)
	}
	if _, err := runtimes.New("zz-no-such-backend"); !errors.Is(err, runtimes.ErrUnknownBackend) {
		t.Errorf(`New("zz-no-such-backend"): got %v; want ErrUnknownBackend`, err)
	}
}
