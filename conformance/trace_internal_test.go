package conformance

import (
	"strings"
	"testing"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestCheckTraceAttach feeds checkTrace made-up logs of a root p and a child
// c: the attach must be c's next event after its create, with the create's
// parent, and may be separated from it by other jobs' events (they come from
// other goroutines).
func TestCheckTraceAttach(t *testing.T) {
	p, c := new(kc.Job), new(kc.Job)
	ev := func(k kc.EventKind, j, parent *kc.Job, s kc.State) kc.Event {
		return kc.Event{Kind: k, Job: j, Parent: parent, State: s}
	}
	var (
		createP   = ev(kc.EvJobCreate, p, nil, 0)
		createC   = ev(kc.EvJobCreate, c, p, 0)
		attachC   = ev(kc.EvJobChildAttach, c, p, 0)
		closingP  = ev(kc.EvJobState, p, nil, kc.Closing)
		endC      = ev(kc.EvJobState, c, nil, kc.Completed)
		finalizeC = ev(kc.EvJobFinalize, c, nil, kc.Completed)
		endP      = ev(kc.EvJobState, p, nil, kc.Completed)
		finalizeP = ev(kc.EvJobFinalize, p, nil, kc.Completed)
	)
	st := kc.Stats{JobsCreated: 2, JobsCompleted: 2}
	for _, tc := range []struct {
		name string
		evs  []kc.Event
		want string // a part of the failure; "" for none
	}{
		{"adjacent", []kc.Event{createP, createC, attachC, closingP, endC, finalizeC, endP, finalizeP}, ""},
		{"interleaved", []kc.Event{createP, createC, closingP, attachC, endC, finalizeC, endP, finalizeP}, ""},
		{"after another event of the job", []kc.Event{createP, createC, endC, attachC, finalizeC, endP, finalizeP}, "attach"},
		{"twice", []kc.Event{createP, createC, attachC, attachC, endC, finalizeC, endP, finalizeP}, "attach"},
		{"other parent", []kc.Event{createP, createC, ev(kc.EvJobChildAttach, c, nil, 0), endC, finalizeC, endP, finalizeP}, "attach"},
		{"before the create", []kc.Event{createP, attachC, createC, endC, finalizeC, endP, finalizeP}, "first event"},
	} {
		pr := new(probe)
		checkTrace(pr, tc.evs, st, 2)
		err := pr.err()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: checkTrace = %v; want no failure", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: checkTrace = %v; want a failure about %q", tc.name, err, tc.want)
		}
	}
}
