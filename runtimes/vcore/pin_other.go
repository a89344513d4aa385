//go:build !linux

package vcore

// pinSupported: this OS has no per-thread affinity call vcore uses (darwin
// has only affinity hints, windows and freebsd are not implemented), so
// New fails with ErrPinningUnsupported when Pinning(true) is asked for.
const pinSupported = false

// cpuMask is empty: no mask is ever read.
type cpuMask struct{}

func (p *pinner) try() error {
	return &PinError{Op: "pin", CPU: -1, Err: ErrPinningUnsupported}
}

func pinThread(int) error { return ErrPinningUnsupported }

func setThreadMask(*cpuMask) error { return ErrPinningUnsupported }
