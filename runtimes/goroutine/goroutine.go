// Package goroutine is the reference backend: every task runs on a goroutine
// of its own, a blocked task blocks its goroutine, and timers are
// time.AfterFunc. It is the simplest correct Executor, and the baseline the
// other backends are compared with. Spawning costs a go statement and its
// WaitGroup, several hundred ns, so it does not meet the spec's JobCreate
// target; that is what the stealing and vcore backends are for.
package goroutine

import (
	"sync"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// Executor runs each task on a new goroutine. The zero value is ready to use.
type Executor struct {
	wg sync.WaitGroup // one count per task not yet returned from Run
}

// New returns a new goroutine Executor.
func New() *Executor { return new(Executor) }

// Name returns "goroutine".
func (*Executor) Name() string { return "goroutine" }

// Spawn starts t on a new goroutine: it never blocks, and t never runs on
// the caller's stack.
func (e *Executor) Spawn(t *kc.Task) {
	e.wg.Add(1)
	go e.run(t)
}

func (e *Executor) run(t *kc.Task) {
	defer e.wg.Done() // deferred: a body that calls runtime.Goexit ends this goroutine inside Run
	t.Run()
}

// Park blocks the calling goroutine until the core wakes p, after Spin has
// given a quick wake its chance. There is no worker to compensate for: the
// blocked goroutine is the task's own.
func (*Executor) Park(p *kc.Parker) {
	p.Spin()
	p.Wait()
}

// AfterFunc is time.AfterFunc.
func (*Executor) AfterFunc(d time.Duration, f func()) kc.Timer { return time.AfterFunc(d, f) }

// Close waits until every spawned task has returned.
func (e *Executor) Close() error {
	e.wg.Wait()
	return nil
}
