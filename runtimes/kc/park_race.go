//go:build race

package kc

import "sync"

// directPark is false in race builds: Parker.Wait blocks on the Parker's
// WaitGroup (see park_direct.go for why).
const directPark = false

// parkDirect is never called in race builds.
func (p *Parker) parkDirect() { panic("kc: parkDirect in a race build") }

// parkSema is the WaitGroup Wait blocks on in race builds.
type parkSema = sync.WaitGroup
