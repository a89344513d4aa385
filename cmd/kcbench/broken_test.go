package main

import (
	"sync"
	"time"

	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/goroutine"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// brokenBackend is registered by registerBroken: the goroutine backend
// with timers that fire at once, which breaks the timeout cases of the
// conformance suite (quickly: nothing waits for a timer that never comes).
const brokenBackend = "zz-test-broken-timers"

type brokenTimers struct{ *goroutine.Executor }

func (brokenTimers) AfterFunc(_ time.Duration, f func()) kc.Timer { return time.AfterFunc(0, f) }

var registerBrokenOnce sync.Once

// registerBroken registers brokenBackend (once per test binary).
func registerBroken() {
	registerBrokenOnce.Do(func() {
		runtimes.Register(brokenBackend, func() (kc.Executor, error) { return brokenTimers{goroutine.New()}, nil })
	})
}
