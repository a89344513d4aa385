//go:build !linux

package cpuload

func read() (reading, error) { return reading{}, ErrUnsupported }
