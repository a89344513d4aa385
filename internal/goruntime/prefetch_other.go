//go:build !amd64 && !arm64

package goruntime

// PrefetchLines does nothing on this architecture (see prefetch.go).
func PrefetchLines(addr uintptr, n uintptr) {}
