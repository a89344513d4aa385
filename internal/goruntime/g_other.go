//go:build !amd64 && !arm64

package goruntime

// GOK reports whether G works on this architecture; see g.go.
const GOK = false

// G returns 0: this architecture has no G (see g.go).
func G() uintptr { return 0 }
