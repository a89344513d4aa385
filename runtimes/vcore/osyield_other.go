//go:build !linux

package vcore

// osYield does nothing where the package has no portable way to give the
// thread up (see osyield_linux.go): Yield stays runtime.Gosched there.
func osYield() {}
