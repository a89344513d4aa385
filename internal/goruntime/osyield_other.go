//go:build !linux

package goruntime

// OSYield does nothing where the package has no portable way to give the
// thread up (see osyield_linux.go): callers fall back to what they did
// before it, runtime.Gosched.
func OSYield() {}
