package vcore

import "golang.org/x/sys/unix"

// pinSupported: Linux has sched_setaffinity for one thread.
const pinSupported = true

// cpuMask is the kernel's CPU set.
type cpuMask = unix.CPUSet

// try reads the calling thread's mask into p, then pins the thread to the
// mask's first CPU and restores the mask.
func (p *pinner) try() error {
	if err := unix.SchedGetaffinity(0, &p.orig); err != nil {
		return &PinError{Op: "sched_getaffinity", CPU: -1, Err: err}
	}
	for i := range len(p.orig) * 64 {
		if p.orig.IsSet(i) {
			p.cpus = append(p.cpus, i)
		}
	}
	if len(p.cpus) == 0 {
		return &PinError{Op: "sched_getaffinity", CPU: -1, Err: unix.EINVAL}
	}
	if err := pinThread(p.cpus[0]); err != nil {
		return &PinError{Op: "sched_setaffinity", CPU: p.cpus[0], Err: err}
	}
	if err := setThreadMask(&p.orig); err != nil {
		return &PinError{Op: "sched_setaffinity", CPU: -1, Err: err}
	}
	return nil
}

// pinThread pins the calling thread to cpu.
func pinThread(cpu int) error {
	var one unix.CPUSet
	one.Set(cpu)
	return unix.SchedSetaffinity(0, &one)
}

// setThreadMask sets the calling thread's mask to m.
func setThreadMask(m *cpuMask) error { return unix.SchedSetaffinity(0, m) }
