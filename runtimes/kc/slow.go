package kc

import "github.com/kcbench/kcbench/runtimes/kc/kcslow"

// slowPoint is where a kcslow build (see package kcslow) spends its known
// extra cost: at the top of Launch, Async and Await, and right after every
// Park returns (on the woken job's critical path, where a slower wake
// cannot hide behind the other side's work). In an ordinary build
// kcslow.On is the constant false, this body is empty and every call
// inlines to nothing.
func slowPoint() {
	if kcslow.On {
		kcslow.Spin()
	}
}
