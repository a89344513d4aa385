package stealing

import "github.com/kcbench/kcbench/runtimes/kc"

// Test hooks. Each one, if not nil, is called at a point of a protocol
// where a move by another goroutine changes the outcome, so that a test can
// make that move there, every run. Set only by tests, while no executor
// runs; each costs its path the load of a package variable.
var (
	// testHookWake: wake, just before it takes a slot for a spinner
	// (hookBeforeAdd) and just before it gives one back (hookBeforeUndo),
	// so that a test can make other workers act in those windows.
	testHookWake func(hookPoint)

	// testHookStart: startSpinner, between its e.starts.Begin and its
	// wg.Add (a Close in that window).
	testHookStart func()

	// testHookIdle: findWork, in a worker that found no work and is about
	// to give its slot back (a Spawn before the worker's last look).
	testHookIdle func()

	// testHookStalled: monitor, on each tick that found a stuck queue,
	// with the number of temporary workers it grants.
	testHookStalled func(granted int32)

	// testHookNoWork: anyWork, after its loads found every queue empty,
	// just before it reports so (a Spawn right after a worker's last look).
	testHookNoWork func()

	// testHookResume: resume, with whether the loop coroutine is resumed
	// by another one (runNested) or by its driver goroutine.
	testHookResume func(nested bool)

	// testHookBatchSpin: Park, with each Parker it spins for with
	// SpinBatch.
	testHookBatchSpin func(*kc.Parker)
)

// hookPoint names a place in wake where testHookWake is called.
type hookPoint uint8

const (
	hookBeforeAdd  hookPoint = iota // the spinning token is taken; the slot is not
	hookBeforeUndo                  // the slot was taken but running was over the target
)
