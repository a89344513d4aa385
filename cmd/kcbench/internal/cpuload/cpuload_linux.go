package cpuload

import (
	"os"
	"syscall"
	"time"
)

// read takes the machine's counters from /proc/stat and this process's
// CPU time, and that of its waited-for children, from getrusage.
func read() (reading, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return reading{}, err
	}
	m, err := parseStat(string(b))
	if err != nil {
		return reading{}, err
	}
	var self, children syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		return reading{}, err
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children); err != nil {
		return reading{}, err
	}
	return reading{machine: m, own: cpuTime(&self) + cpuTime(&children)}, nil
}

func cpuTime(r *syscall.Rusage) time.Duration {
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
