package conformance

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// modelFoundCases are the defects the model-based random checker
// (conformance/model) found, each as a case that reproduces it directly:
// a cancellation that reached a job only lazily (the job was not on its
// parent's child list when the parent's walk ran) must count as that
// job's first cancellation; a cancelled job must not complete a channel
// operation after its cancellation; whoever sees a failed child terminal
// must also see its parent, and the parent's other children, cancelled by
// that failure; and a job that its child's failure cancelled still gets
// that failure from a Join of the child, however soon it joins.
func modelFoundCases() []Case {
	return []Case{
		mk("LazyCancelFirstCauseWins", "02 first cancel wins, also when an ancestor's cancellation reached the job lazily", lazyCancelFirstCauseWins),
		mk("CancelledProducerSendsNothing", "05 Channels: a cancelled job's Send does not commit after the cancel", cancelledProducerSendsNothing),
		mk("JoinFailedChildSeesParentCancelled", "02 a child's failure cancels its parent before anyone sees the child terminal", joinFailedChildSeesParentCancelled),
		mk("JoinChildWhoseFailureCancelledMe", "DESIGN a finished target gives its own outcome: Join right after its failure cancelled the waiter", joinChildWhoseFailureCancelledMe),
	}
}

// raceBudget bounds how long the cases that hunt a race loop: enough rounds
// to catch the old defects in a few runs, short enough for CI.
const raceBudget = 2 * time.Second

// moreRounds reports whether a race-hunting case goes on to round: always
// for the first 200, then until end (its raceBudget) or 200,000 rounds.
func moreRounds(round int, end time.Time) bool {
	return round < 200 || time.Now().Before(end) && round < 200000
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

// A producer whose nursery is cancelled before anyone receives from its
// unbuffered channel cannot hand its value over: the Send commits only
// with a receiver, which comes after the cancel, so the Send must end with
// the cancellation and the Recv with the channel's close. The producer is
// first let into its Send (it has passed its own cancellation check), so
// the cancel races with the Send's commit.
func cancelledProducerSendsNothing(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		stop := p.deadman("Recv from a cancelled producer", func() { j.Cancel(nil) })
		defer stop()
		end := time.Now().Add(raceBudget)
		for round := 0; moreRounds(round, end); round++ {
			n, err := j.Open()
			if !p.job("Open", n, err) {
				return nil
			}
			var sending atomic.Bool
			var sendErr error
			out, err := kc.Produce(n, 0, func(pj *kc.Job, out *kc.Chan[int]) error {
				sending.Store(true)
				sendErr = out.Send(pj, round)
				return sendErr
			})
			if !p.noErr("Produce", err) {
				return nil
			}
			if round%2 == 1 {
				// Bounded: a backend may run the producer only once this
				// body blocks.
				for i := 0; i < 1000 && !sending.Load(); i++ {
					runtime.Gosched()
				}
			}
			n.Cancel(nil)
			v, err := out.Recv(j)
			if err == nil {
				p.failf("Recv after the producer's nursery was cancelled: got value %d (round %d); want no value", v, round)
				return nil
			}
			if !p.is("Recv from the cancelled producer", err, kc.ErrClosed) ||
				!p.is("AwaitAll of the cancelled nursery", n.AwaitAll(j), kc.ErrCancelled) {
				return nil
			}
			if sendErr != nil && !p.is("the producer's Send", sendErr, kc.ErrCancelled) {
				return nil
			}
		}
		return nil
	}))
}

// A child fails; its parent's body sees it terminal (State), joins it and
// gets its failure. By then the failure has cancelled the parent and the
// parent's other children (an open nursery, which then ends Cancelled): a
// Launch on the parent is refused with ErrCancelled, and the scope ends
// with the first failure, not a later one.
func joinFailedChildSeesParentCancelled(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		end := time.Now().Add(raceBudget)
		failed := false
		for round := 0; !failed && (moreRounds(round, end)); round++ {
			err := j.Scope(func(s *kc.Job) error {
				failed = true // until the round's checks pass
				n, err := s.Open()
				if !p.job("Open", n, err) {
					return nil
				}
				c, err := s.Launch(func(cj *kc.Job) error {
					_ = cj.Yield()
					return errBoom
				})
				if !p.job("Launch", c, err) {
					return nil
				}
				for !c.State().Terminal() {
					runtime.Gosched()
				}
				if err := c.Join(s); !p.is("Join of the failed child", err, errBoom) {
					return nil
				}
				if !p.check(s.IsCancelled(), "IsCancelled of the parent after Join of its failed child: got false; want true (round %d)", round) ||
					!p.check(n.State() == kc.Cancelled, "State of an empty nursery beside the failed child after Join of that child: got %v; want Cancelled (round %d)", n.State(), round) {
					return nil
				}
				d, err := s.Launch(func(*kc.Job) error { return errBoom2 })
				if err == nil {
					p.failf("Launch after Join of a failed child: got job %v; want ErrCancelled (round %d)", d, round)
					return nil
				}
				failed = !p.is("Launch after Join of a failed child", err, kc.ErrCancelled)
				return nil
			})
			if !p.is("Scope whose child failed", err, errBoom) || !p.isNot("Scope whose child failed", err, errBoom2) {
				return nil
			}
		}
		return nil
	}))
}

// A child fails; its parent's body sees itself cancelled (by that failure)
// and joins the child at once: the Join returns the child's own failure,
// not the cancellation, however soon after the cancellation it comes
// (the child may not be published terminal yet, but it is finishing).
func joinChildWhoseFailureCancelledMe(rt *kc.Runtime, p *probe) {
	p.noErr("Run", rt.Run(ctx, func(j *kc.Job) error {
		end := time.Now().Add(raceBudget)
		failed := false
		for round := 0; !failed && (moreRounds(round, end)); round++ {
			err := j.Scope(func(s *kc.Job) error {
				failed = true // until the round's checks pass
				c, err := s.Launch(func(cj *kc.Job) error {
					_ = cj.Yield()
					return errBoom
				})
				if !p.job("Launch", c, err) {
					return nil
				}
				for !s.IsCancelled() {
					runtime.Gosched()
				}
				err = c.Join(s)
				if !p.is("Join of the failed child right after its failure cancelled the joiner", err, errBoom) ||
					!p.isNot("Join of the failed child right after its failure cancelled the joiner", err, kc.ErrCancelled) {
					p.failf("(round %d)", round)
					return nil
				}
				failed = false
				return nil
			})
			if !p.is("Scope whose child failed", err, errBoom) {
				return nil
			}
		}
		return nil
	}))
}
