package conformance

import (
	"github.com/kcbench/kcbench/runtimes/kc"
)

// modelFoundCases are the defects the model-based random checker
// (conformance/model) found, each as a case that reproduces it directly:
// a cancellation that reached a job only lazily (the job was not on its
// parent's child list when the parent's walk ran) must count as that
// job's first cancellation.
func modelFoundCases() []Case {
	return []Case{
		mk("LazyCancelFirstCauseWins", "02 first cancel wins, also when an ancestor's cancellation reached the job lazily", lazyCancelFirstCauseWins),
	}
}

// A running child that is blocked outside kc (on a Go channel) is on no
// child list, so its nursery's cancel walk does not reach it; the
// cancellation still reached it (lazily), and came first: the child's own
// Cancel afterwards returns false and changes nothing, and the child ends
// cancelled with the nursery's cause.
func lazyCancelFirstCauseWins(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		for range 20 {
			n, err := j.Open()
			if !p.job("Open", n, err) {
				return nil
			}
			started, release := make(chan struct{}), make(chan struct{})
			c, err := n.Launch(func(cj *kc.Job) error {
				close(started)
				<-release
				return cj.Check()
			})
			if !p.job("Launch", c, err) {
				return nil
			}
			<-started
			n.Cancel(errCause)
			moved := c.Cancel(errCause2)
			close(release)
			err = c.Join(j)
			ok := eq(p, "Cancel of a child its nursery's cancellation reached lazily", moved, false)
			ok = p.is("Join of that child", err, kc.ErrCancelled, errCause) && ok
			ok = p.isNot("Join of that child", err, errCause2) && ok
			ok = p.is("AwaitAll of the cancelled nursery", n.AwaitAll(j), kc.ErrCancelled, errCause) && ok
			if !ok {
				return nil
			}
		}
		return nil
	}))
}
