package conformance

import (
	"sync/atomic"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// treeEdgeCases check what reaches a child from the job above it without
// the child asking for it: a cancellation that comes before its body
// starts (the body is skipped), a cancellation whose walk did not visit it
// (its Err reports it all the same), and the Close of the nursery it was
// opened in (it is closed too).
func treeEdgeCases() []Case {
	return []Case{
		mk("CancelledBeforeStartSkipsBody", "01 cancellation before start; 03 kc_scope_produce", cancelledBeforeStartSkipsBody),
		mk("ContextErrOfUnvisitedChild", "DESIGN Context: Err after the parent's cancel", contextErrOfUnvisitedChild),
		mk("NurseryCloseClosesInner", "04 close(); DESIGN Nursery: Close plays the part of a body returning", nurseryCloseClosesInner),
	}
}

// A child cancelled before its body starts does not run the body, whether
// started by Launch, Async or Produce (whose job still runs, to close its
// channel, but not the body). Each round cancels the child's nursery right
// after starting the child, which in most rounds is before the body starts:
// a runtime that runs bodies of cancelled children runs them in every round.
func cancelledBeforeStartSkipsBody(rt *kc.Runtime, p *probe) {
	starts := []struct {
		name  string
		start func(n *kc.Job, ran *atomic.Bool) error
	}{
		{"Launch", func(n *kc.Job, ran *atomic.Bool) error {
			_, err := n.Launch(func(*kc.Job) error { ran.Store(true); return nil })
			return err
		}},
		{"Async", func(n *kc.Job, ran *atomic.Bool) error {
			_, err := kc.Async(n, func(*kc.Job) (int, error) { ran.Store(true); return 0, nil })
			return err
		}},
		{"Produce", func(n *kc.Job, ran *atomic.Bool) error {
			_, err := kc.Produce(n, 0, func(*kc.Job, *kc.Chan[int]) error { ran.Store(true); return nil })
			return err
		}},
	}
	for _, st := range starts {
		ran := 0
		p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
			for range cancelRounds {
				n, err := j.Open()
				if !p.job("Open", n, err) {
					return nil
				}
				var bodyRan atomic.Bool
				if !p.noErr(st.name, st.start(n, &bodyRan)) {
					return nil
				}
				n.Cancel(errCause)
				if !p.is("AwaitAll of the cancelled nursery", n.AwaitAll(j), kc.ErrCancelled) {
					return nil
				}
				if bodyRan.Load() {
					ran++
				}
			}
			return nil
		}))
		p.check(ran < cancelRounds, "%s: got the body run in all %d rounds that cancelled the child right after starting it; want it skipped when the cancel came first",
			st.name, cancelRounds)
	}
}

// A child's Err reports its parent's cancellation as soon as its Done would
// be closed, also when the child took no Done channel, hook or child of its
// own before the cancel, so that the parent's cancel walk did not visit it
// and it learns of the cancellation only when asked.
func contextErrOfUnvisitedChild(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		got := make(chan error, 1)
		c, ok := runAfterUnseenCancel(p, n, func(c *kc.Job) error {
			got <- c.Err()
			return nil
		})
		if !ok {
			return
		}
		p.is("Err of a child whose parent was cancelled", <-got, kc.ErrCancelled, errCause)
		p.is("AwaitAll", n.AwaitAll(w), kc.ErrCancelled)
		p.state("child", c, kc.Cancelled)
	})
}

// runAfterUnseenCancel launches a child of the nursery n that waits, with
// no checkpoint, hook, Done channel or child of its own (so that n's
// cancel walk need not visit it), until n has been cancelled with errCause,
// and then runs body. It reports whether the Launch and the Cancel
// succeeded. The child is started before the Cancel, since a child
// cancelled before it starts skips its body.
func runAfterUnseenCancel(p *probe, n *kc.Job, body kc.Func) (*kc.Job, bool) {
	started, gate := make(chan struct{}), make(chan struct{})
	c, err := n.Launch(func(c *kc.Job) error {
		close(started)
		<-gate
		return body(c)
	})
	if !p.job("Launch", c, err) {
		return nil, false
	}
	<-started
	ok := p.check(n.Cancel(errCause), "Cancel of the nursery: got false; want true")
	close(gate)
	return c, ok
}

// Closing a nursery closes the nurseries opened in it that are still open,
// and theirs, as the return of a body closes the nurseries it opened (a
// nursery's Close plays the part of its body returning): AwaitAll of the
// outer one ends once the children are done, and the inner ones complete.
func nurseryCloseClosesInner(rt *kc.Runtime, p *probe) {
	withNursery(rt, p, func(w, n *kc.Job) {
		inner, err := n.Open()
		if !p.job("Open in the nursery", inner, err) {
			return
		}
		deep, err := inner.Open()
		if !p.job("Open in the inner nursery", deep, err) {
			return
		}
		c, err := deep.Launch(nop)
		if !p.job("Launch", c, err) {
			return
		}
		stop := p.deadman("AwaitAll of a nursery with open nurseries in it", func() { w.Cancel(nil) })
		p.noErr("AwaitAll of the outer nursery", n.AwaitAll(w))
		stop()
		p.state("nursery opened in it", inner, kc.Completed)
		p.state("nursery opened in that one", deep, kc.Completed)
		p.state("child", c, kc.Completed)
	})
}
