//go:build !kcslow

package kcslow

// On reports whether this build injects the extra cost; without the
// kcslow build tag it is false and every guarded call site compiles to
// nothing.
const On = false

// Spin does nothing in an ordinary build (and is never called: every call
// site is guarded by On).
func Spin() {}
