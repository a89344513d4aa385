package vcore

import "golang.org/x/sys/unix"

// threadID is the thread_selfid system call (the id pthread_threadid_np
// reports), a raw syscall; 0 if it fails.
func threadID() uint64 {
	id, _, errno := unix.RawSyscall(unix.SYS_THREAD_SELFID, 0, 0, 0)
	if errno != 0 {
		return 0
	}
	return uint64(id)
}
