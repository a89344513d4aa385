package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Exclude is a set of runtime defects (see KnownOpen for the open ones; the
// others are fixed, kept to check an older core) whose programs the
// generator leaves out (and, for ExclJoinOutcome, the comparison
// forgives). A checker run against a fixed runtime uses none.
type Exclude uint32

const (
	// ExclRunCancelledCtx: no program runs with an already-cancelled context
	// (Run may run the body and return nil).
	ExclRunCancelledCtx Exclude = 1 << iota
	// ExclCancelBeforeStart: no actor or producer is cancelled before it
	// surely started (its channel is then never closed).
	ExclCancelBeforeStart
	// ExclPoolDiscard: no Get waits for a Discard (Discard does not wake it).
	ExclPoolDiscard
	// ExclJoinOutcome: a Join, Await or AwaitAll that wants the target's
	// failure e also accepts "cancelled: e" (the waiter's cancellation by
	// that same failure may win the race).
	ExclJoinOutcome
	// ExclSelectRepeat: no Select with a repeated case (not rejected).
	ExclSelectRepeat
	// ExclNurseryCancel: nothing waits for, observes or leases a cancelled
	// nursery that is not closed (it does not end until closed).
	ExclNurseryCancel
	// ExclSelfWait: no Join of the waiter itself or an ancestor (it hangs).
	ExclSelfWait
	// ExclFailureAfterJoin: a body whose wait for a child returns that
	// child's failure does nothing more, and no such failure reaches a job
	// with a live nursery. (Join can see the child terminal before the
	// child's failure has cancelled the waiter's job: the body then goes
	// on as if nothing failed, and a later failure became its Result.
	// Fixed: a failure cancels the parent before the failed child is
	// published terminal.)
	ExclFailureAfterJoin
	// ExclLazyCancel: no Cancel of a job that an ancestor's cancellation
	// already reached. (A child that was not on its parent's child list when
	// the parent's cancel walk ran learns of it lazily; Cancel did not
	// look, so it returned true and replaced the cause. Fixed: Cancel
	// records the lazy cancellation first.)
	ExclLazyCancel
	// ExclChanCommitAfterCancel: no producer is cancelled while its consumer
	// may still receive. (A Send that passed its cancellation check when
	// its job's cancellation reached it lazily enqueues anyway, and a
	// receiver that comes before the Send registers its cancellation hook
	// takes the value: a job already cancelled sends. Fixed: an operation
	// looks at its job's cancellation, and a counterpart at the blocked
	// job's, under the channel's mutex at the commit.)
	ExclChanCommitAfterCancel
)

// KnownOpen is the exclusions of the defects still open in runtimes/kc:
// none. Every exclusion names a defect that is fixed; they stay so that
// the checker can be pointed at an older core.
const KnownOpen Exclude = 0

var exclNames = []string{"RunCancelledCtx", "CancelBeforeStart", "PoolDiscard", "JoinOutcome",
	"SelectRepeat", "NurseryCancel", "SelfWait", "FailureAfterJoin",
	"LazyCancel", "ChanCommitAfterCancel"}

func (e Exclude) String() string {
	s := ""
	for i, n := range exclNames {
		if e&(1<<i) != 0 {
			if s != "" {
				s += ","
			}
			s += n
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

// does not know.
var ErrUnknownExclusion = errors.New("unknown exclusion")

// ParseExclude parses a comma-separated list of exclusion names (as
// Exclude.String prints them), "known" for KnownOpen, or "none" or "".
func ParseExclude(list string) (Exclude, error) {
	var e Exclude
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		switch name {
		case "", "none":
			continue
		case "known":
			e |= KnownOpen
			continue
		}
		i := slices.Index(exclNames, name)
		if i < 0 {
			return 0, fmt.Errorf("%w %q (known: %s, known, none)", ErrUnknownExclusion, name, strings.Join(exclNames, ", "))
		}
		e |= 1 << i
	}
	return e, nil
}
