package vcore

import "syscall"

// osYield gives the caller's thread up to another thread the OS has ready
// on its CPU (sched_yield), as the Go runtime's own spin waits do
// (osyield) once pausing has not helped.
func osYield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
