//go:build ignore

// The A/B driver's stand-ins for an ordinary build (see main.go).
package main

// slowInfo says that this build injects nothing.
func slowInfo() string { return "off" }

// slowCalls is 0: nothing is counted.
func slowCalls() uint64 { return 0 }
