//go:build !linux && !freebsd && !darwin && !(windows && (amd64 || arm64))

package vcore

// threadID is 0: no thread id is read on this OS, and the registry stays
// empty (see threadIDsWork).
func threadID() uint64 { return 0 }
