package vcore

import "golang.org/x/sys/unix"

// threadID is gettid(2), a raw syscall.
func threadID() uint64 { return uint64(unix.Gettid()) }
