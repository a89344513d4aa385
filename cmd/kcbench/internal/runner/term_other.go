//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd && !windows

package runner

import "os"

// IsTerminal reports whether f is a character device, the nearest
// portable guess at a terminal.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
