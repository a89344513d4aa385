package vcore

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// threadID is thr_self(2), a raw syscall; 0 if it fails.
func threadID() uint64 {
	var id int64 // the kernel's long
	if _, _, errno := unix.RawSyscall(unix.SYS_THR_SELF, uintptr(unsafe.Pointer(&id)), 0, 0); errno != 0 {
		return 0
	}
	return uint64(id)
}
