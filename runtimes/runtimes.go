// Package runtimes is the registry of backends: every Executor that kcbench
// knows by name. The conformance suite and the benchmarks iterate over
// Names(); a new backend becomes part of both by calling Register.
package runtimes

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
	"github.com/kcbench/kcbench/runtimes/stealing"
	"github.com/kcbench/kcbench/runtimes/vcore"
)

// ErrUnknownBackend is matched by the error New returns for an unknown name.
var ErrUnknownBackend = errors.New("unknown backend")

// UnknownBackendError is New's error for a name nobody registered.
type UnknownBackendError struct {
	Name  string
	Known []string
}

func (e *UnknownBackendError) Error() string {
	return fmt.Sprintf("runtimes: unknown backend %q (known: %s)", e.Name, strings.Join(e.Known, ", "))
}

// Is makes errors.Is(err, ErrUnknownBackend) hold.
func (e *UnknownBackendError) Is(target error) bool { return target == ErrUnknownBackend }

var (
	mu       sync.Mutex
	names    []string                                   // registration order
	backends = map[string]func() (kc.Executor, error){} // under mu
)

func init() {
	Register("goroutine", func() (kc.Executor, error) { return goroutine.New(), nil })
	Register("stealing", func() (kc.Executor, error) { return executor(stealing.New()) })
	Register("vcore", func() (kc.Executor, error) { return executor(vcore.New()) })
}

// executor turns a backend's New result into Register's, so that a failed
// New gives a nil kc.Executor rather than one holding a nil pointer.
func executor[E kc.Executor](e E, err error) (kc.Executor, error) {
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Register makes a backend available under name: newExecutor is called once
// per runtime New creates, and an error from it is New's error. Register
// panics if name is empty or already taken, like database/sql.Register.
func Register(name string, newExecutor func() (kc.Executor, error)) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || newExecutor == nil {
		panic("runtimes: Register with empty name or nil constructor")
	}
	if _, dup := backends[name]; dup {
		panic("runtimes: Register called twice for " + name)
	}
	backends[name] = newExecutor
	names = append(names, name)
}

// Names returns the registered backend names in registration order.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	return append([]string(nil), names...)
}

// Validate returns nil if name is registered, else an *UnknownBackendError.
// Unlike New it starts nothing.
func Validate(name string) error {
	mu.Lock()
	_, ok := backends[name]
	mu.Unlock()
	if !ok {
		return &UnknownBackendError{Name: name, Known: Names()}
	}
	return nil
}

// New returns a runtime on a fresh executor of the named backend. Its
// errors: an *UnknownBackendError, or the backend constructor's error,
// wrapped with the backend's name.
func New(name string, opts ...kc.Option) (*kc.Runtime, error) {
	if err := Validate(name); err != nil {
		return nil, err
	}
	mu.Lock()
	newExecutor := backends[name]
	mu.Unlock()
	ex, err := newExecutor()
	if err != nil {
		return nil, fmt.Errorf("runtimes: %s: %w", name, err)
	}
	return kc.New(ex, append([]kc.Option{kc.WithName(name)}, opts...)...), nil
}
