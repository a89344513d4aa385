//go:build windows && (amd64 || arm64)

package vcore

// threadID returns the address of the calling thread's Thread Environment
// Block (NtCurrentTeb), which is unique among live threads: one load from
// the TEB register (tid_windows_GOARCH.s), no call into the OS, which
// through the Go runtime could move the caller to another thread.
func threadID() uint64
