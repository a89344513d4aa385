package vcore

// Test hooks. Each one, if not nil, is called at a point of a protocol
// where a move by another goroutine changes the outcome, so that a test can
// make that move there, every run, instead of hoping to hit a window of a
// few nanoseconds. Tests set them only while no executor goroutine can call
// them (before the executor under test starts any, or once every other has
// been closed) and clear them after its Close. Each costs its path the load
// of a package variable.
var (
	// testHookStart: runElsewhere, between its e.starts.Begin and its
	// wg.Add (a Close in that window).
	testHookStart func()

	// testHookPass: pass, after it found no work for c and before its CAS
	// to Free (a Spawn whose kick finds c still Running).
	testHookPass func(c *core)

	// testHookRetake: retake, after it judged c stuck from the word it
	// loaded and before its CAS (the stuck owner moving c on).
	testHookRetake func(c *core)

	// testHookMonSleep: monSleep, after sysmon decided to sleep and before
	// it says so (a Spawn whose kick finds sysmon awake).
	testHookMonSleep func()

	// testHookResume: step, with whether the context is resumed by another
	// context (driveNested) or by its driver goroutine.
	testHookResume func(nested bool)
)
