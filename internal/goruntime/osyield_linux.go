package goruntime

import "syscall"

// OSYield gives the calling thread up to another thread the OS has ready
// on its CPU (sched_yield), as the Go runtime's own spin waits do
// (osyield) once pausing has not helped. It is a system call, about a
// microsecond when nothing else is ready; the goroutine keeps its P.
func OSYield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
