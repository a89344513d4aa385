package conformance

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// stressCases check depth, long wait chains and bodies that block where the
// runtime cannot see (DESIGN "Backends").
func stressCases() []Case {
	return []Case{
		mk("DeepScopes", "03 nested scopes (5000 levels)", deepScopes),
		mk("DeepLaunchJoin", "01 §4.13 join (5000 levels)", deepLaunchJoin),
		mk("JoinChain", "05 park/unpark: 10 000 tasks each joining the next", joinChain),
		mk("BlockingGoChannel", "05 horizontal scaling: blocked workers", blockingGoChannel),
		mk("BlockingBarrier", "05 horizontal scaling: blocked workers", blockingBarrier),
		mk("ForeignChain", "05 horizontal scaling: 10 000 tasks each blocked on a Go channel", foreignChain),
	}
}

const deep = 5000

// 5000 nested Scopes complete, and a failure at the bottom reaches the top.
func deepScopes(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		reached := 0
		var nest func(j *kc.Job, depth int, leaf error) error
		nest = func(j *kc.Job, depth int, leaf error) error {
			if depth == 0 {
				reached++
				return leaf
			}
			return j.Scope(func(s *kc.Job) error { return nest(s, depth-1, leaf) })
		}
		before := rt.Stats()
		p.noErr("5000 nested Scopes", nest(j, deep, nil))
		p.is("5000 nested Scopes failing at the bottom", nest(j, deep, errBoom), errBoom)
		eq(p, "bottoms reached", reached, 2)
		d := statsDelta(before, rt.Stats())
		p.stats("Stats", d, 2*deep, deep, deep, deep, 0)
		return nil
	}))
}

// 5000 levels of Launch + Join complete, and a failure at the bottom fails
// every level.
func deepLaunchJoin(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var nest func(j *kc.Job, depth int, leaf error) error
		nest = func(j *kc.Job, depth int, leaf error) error {
			if depth == 0 {
				return leaf
			}
			c, err := j.Launch(func(c *kc.Job) error { return nest(c, depth-1, leaf) })
			if err != nil {
				return err
			}
			return c.Join(j)
		}
		p.noErr("5000 levels of Launch+Join", nest(j, deep, nil))
		err := j.Scope(func(s *kc.Job) error { return nest(s, deep, errBoom) })
		p.is("5000 levels of Launch+Join failing at the bottom", err, errBoom)
		return nil
	}))
}

// 10 000 sibling tasks, each joining the next, the last one blocked until
// all are launched: every one is waiting at once, and all must finish.
func joinChain(rt *kc.Runtime, p *probe) {
	const n = 10000
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		p.awaitRunWaiter(rt)
		before := rt.Stats()
		nur, err := j.Open()
		if !p.job("Open", nur, err) {
			return nil
		}
		gate, release, ok := newGate(p, j)
		if !ok {
			return nil
		}
		jobs := make([]*kc.Job, n)
		jobs[n-1], err = nur.Launch(func(c *kc.Job) error { return gate.Join(c) })
		if !p.job("Launch", jobs[n-1], err) {
			release()
			return nil
		}
		for i := n - 2; i >= 0; i-- {
			next := jobs[i+1]
			if jobs[i], err = nur.Launch(func(c *kc.Job) error { return next.Join(c) }); !p.job("Launch", jobs[i], err) {
				break
			}
		}
		release()
		p.noErr("AwaitAll", nur.AwaitAll(j))
		p.allIn("tasks", jobs, kc.Completed)
		d := statsDelta(before, rt.Stats())
		p.stats("Stats (tasks, nursery, gate)", d, n+2, 0, 0, n+2, 0)
		eq(p, "WaitersWoken delta", d.WaitersWoken, d.WaitersRegistered)
		return nil
	}))
}

// blockers is how many bodies block at once: more than GOMAXPROCS.
func blockers() int { return 2*runtime.GOMAXPROCS(0) + 4 }

// More bodies than GOMAXPROCS block on a Go channel, all at once; the
// runtime must keep running the rest of them.
func blockingGoChannel(rt *kc.Runtime, p *probe) {
	n := blockers()
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		nur, err := j.Open()
		if !p.job("Open", nur, err) {
			return nil
		}
		started := make(chan struct{}, n)
		release := make(chan struct{})
		launched := 0
		for range n {
			if _, err := nur.Launch(func(*kc.Job) error {
				started <- struct{}{}
				<-release
				return nil
			}); !p.noErr("Launch", err) {
				break
			}
			launched++
		}
		for range launched {
			<-started // all of them are blocked at once
		}
		close(release)
		p.noErr("AwaitAll", nur.AwaitAll(j))
		return nil
	}))
}

// More bodies than GOMAXPROCS meet at a sync.WaitGroup barrier, which none
// passes until all have arrived.
func blockingBarrier(rt *kc.Runtime, p *probe) {
	n := blockers()
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		var barrier sync.WaitGroup
		barrier.Add(n)
		err := j.Scope(func(s *kc.Job) error {
			for i := range n {
				if _, err := s.Launch(func(*kc.Job) error {
					barrier.Done()
					barrier.Wait()
					return nil
				}); err != nil {
					barrier.Add(i - n) // let the launched ones through
					return err
				}
			}
			return nil
		})
		p.noErr("Scope", err)
		return nil
	}))
}

// 10 000 tasks each block on a plain Go channel, which the runtime cannot
// see, until the task launched before it closes it; the task that closes
// the first channel is launched last. Every body may be blocked at once, so
// the backend must keep adding workers (DESIGN "Backends": a chain of
// 10 000 finishes whatever its bodies block on).
func foreignChain(rt *kc.Runtime, p *probe) {
	const n = 10000
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		nur, err := j.Open()
		if !p.job("Open", nur, err) {
			return nil
		}
		links := make([]chan struct{}, n) // task i closes links[i]
		for i := range links {
			links[i] = make(chan struct{})
		}
		var ran atomic.Int32
		link := func(i int) kc.Func {
			return func(*kc.Job) error {
				if i > 0 {
					<-links[i-1]
				}
				ran.Add(1)
				close(links[i])
				return nil
			}
		}
		launched := int32(0)
		for k := 1; k <= n; k++ {
			i := k % n // 1, 2, ..., n-1, then 0: the releasing task last
			if _, err := nur.Launch(link(i)); !p.noErr("Launch", err) {
				close(links[i]) // the chain goes on past the task that never ran
				continue
			}
			launched++
		}
		p.noErr("AwaitAll", nur.AwaitAll(j))
		eq(p, "tasks that ran", ran.Load(), launched)
		eq(p, "tasks launched", launched, n)
		return nil
	}))
}
