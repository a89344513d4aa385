// Package perf holds kcbench's benchmark workloads and their peers, the
// plain-Go equivalents, in a form that both `go test -bench` (bench_test.go)
// and a program (`kcbench run`, through testing.Benchmark) can run.
//
// Workloads returns the workloads; each runs on every backend registered in
// package runtimes (runtimes.Names, read at call time, so a new backend is
// benchmarked as soon as it registers) and on the peers that have a fair
// equivalent of it (Workload.Backends). Workload.Bench returns the benchmark
// function for one backend and size; Workload.Run runs a few operations
// untimed through the same code, for tests. Unknown names and bad sizes
// come back as errors (ErrUnknownWorkload, ErrUnknownBackend, ErrBadArgument;
// *NameError, *ArgError), never as panics.
//
// # Names
//
// Results are named Benchmark<Workload>/backend=<name>, with /n=<k> below
// that for a sized workload; peers run as backend=peer-go (a go statement
// with sync.WaitGroup or a channel), peer-errgroup (golang.org/x/sync/errgroup),
// peer-conc (github.com/sourcegraph/conc) and peer-context (context.WithCancel
// trees), and every workload has a floor, backend=floor (see Floors). The
// workload names are a contract: baselines refer to them.
//
// # Conventions
//
// Runtime creation and Close are outside the timer. Every benchmark reports
// allocations, counted only while the timer runs. One op is one b.N
// iteration, as described below; where the setup of an op must not be
// measured, the timer is stopped around it (which costs a
// runtime.ReadMemStats per op, so only ops of 100 µs or more do that).
//
// # Workloads
//
// JobCreate: the whole cost of a job. Inside one root job, b.N empty children
// (func(*kc.Job) error { return nil }) are launched into one nursery (Open),
// which is then awaited (AwaitAll) before the timer stops: creation, spawn,
// run, completion and detach, amortised. Peers: peer-go (WaitGroup.Go),
// peer-errgroup (Go on one errgroup.WithContext group, then Wait), peer-conc
// (conc.WaitGroup.Go, then Wait), peer-context (per op, a context.WithCancel
// child of a cancellable parent and a goroutine that runs its cancel,
// detaching it from the parent: what a job is, a cancellable node plus a
// task).
//
// AwaitCached: Await of a deferred that has already completed (the spec asks <=
// 150 ns; in kc it is one atomic load, a few ns). Peers: peer-go awaits the
// idiomatic Go future (a value published by closing a channel: a receive from
// the closed channel, then the value); peer-errgroup calls Wait on a finished
// group, which returns the group's stored error. No conc or context peer:
// reading a variable after a WaitGroup.Wait, or ctx.Err, is not an await of a
// result.
//
// AwaitPending: Async of an empty body, then Await of it, b.N times in a row.
// The core runs a child that its own parent awaits inline if no worker has
// started it yet, so this measures Async plus a spawn plus, usually, an inline
// run. Peers: peer-go (go statement completing a future, then receive),
// peer-errgroup (a new errgroup.Group, Go, Wait), peer-conc (a new
// conc.WaitGroup, Go, Wait). No context peer: a context carries no result.
//
// CancelFanout/n (n = 1000, 10000, 100000; at most MaxSize, as for every
// sized workload): per op, untimed, n children are
// launched into a nursery, each blocked in j.Sleep(time.Hour); the setup waits
// until every child has entered its body (a counter, and a nursery held by a
// lease that the last child releases, so the wait is a WaitAll, visible to the
// runtime, rather than a spin that could starve a work-stealing worker).
// Then the timer runs for Cancel of the nursery and the wait until it and
// all n children are terminal. A child that had not parked yet when Cancel
// came returns from Sleep's checkpoint instead, which is cheaper, never
// dearer. Extra metric: ns/child. Peers, with the same readiness setup:
// peer-context (n goroutines each in Go's cancellable one-hour sleep: a
// time.Timer armed, a select on it and ctx.Done(), the timer stopped, as
// kc's Sleep arms and disarms its own; cancel, then WaitGroup.Wait) and
// peer-errgroup (n g.Go bodies in the same sleep on the group context,
// which derives from a cancellable parent; cancel the parent, then Wait,
// which returns context.Canceled). No peer-go or peer-conc: neither
// has cancellation, and closing a channel would be peer-context again.
//
// WaitersStorm/n (n = 32): per op, one deferred is kept pending by a lease
// its body takes on its own job (so no worker blocks to keep it pending), n
// jobs await it, the op waits until all n have started (each passes a
// readiness gate just before its Await), completes the deferred by
// releasing the lease, and waits until all n awaits returned. The whole op
// is timed, including creating the deferred, the waiters and the gate (one
// nursery and one lease). Peer: peer-go, a future completed by close after
// n goroutines have started to await it. Both sides use the same readiness
// rule, since Go cannot tell whether a goroutine is parked on a channel: an
// awaiter that has not parked when the result comes takes the fast path,
// on either side. No errgroup, conc or context peer: they add nothing to a
// single future.
//
// NestedScopes: a chain of NestedDepth (100) nested Scope calls with nothing
// to wait for, per op (each scope runs the next one's body on the calling
// goroutine, as Scope does). Peers: peer-errgroup (100 nested
// errgroup.WithContext groups, each running the next level inline, then
// Wait) and peer-context (100 nested context.WithCancel, cancelled on the
// way out), both under a cancellable root. No peer-go or peer-conc: without
// cancellation a scope of theirs is an empty WaitGroup, and timing nothing
// would flatter them.
//
// FanOut/n (n = 10, 100, 1000): per op, a Scope that launches n children,
// each running task (TaskIters = 128 dependent xorshift steps, about 200 ns,
// with its result kept observable), and waits for them. Peers: peer-go
// (WaitGroup.Go), peer-errgroup (an errgroup.WithContext group per op, the
// equivalent of a scope that cancels on failure), peer-conc (conc.WaitGroup,
// which has no cancellation). No context peer: a context does not wait.
//
// ChanPingPong, ChanBuffered, Select and SleepWake: kc.Chan, kc.Select and
// Job.Sleep against Go's channels, select and time.Sleep (peer-go); their
// ops are described by Workload.Op and in chan.go. SleepWake's ratio to
// peer-go measures a policy as much as a runtime: the stealing and vcore
// backends spin on a timer due within microseconds, where time.Sleep
// sleeps in the kernel (and wakes late by the kernel's timer slack), and
// sec/op does not count the CPU the spin burns. Its floor spins too.
//
// # Floors
//
// The floor of a workload (backend=floor, floor.go and floor_park.go) is
// its irreducible work done in plain Go, measured in the same run as the
// backends, so that sec/op vs floor says how far each is from the limit.
// Each is a lower bound: a runtime can only go below it by skipping work
// the workload asks for. The common parts: a job is a 128-byte record
// (FloorJobSize) carved out of 8 KiB slabs, since a job handed to user
// code cannot be reused but can share an allocation; a run queue is a
// plain ring with one owner; a completion is one atomic add, since its
// waiter may run on another worker; a parked job is an iter.Pull
// coroutine, pooled where stacks could be reused, since switching to it is
// the cheapest way Go has to resume a function in progress (no run queue,
// no wake-up of another thread; a goroutine woken through a channel or
// WaitGroup costs more). Spinning hand-offs between cores are not used:
// they bill a second core to one op, and a job blocked in a channel must
// give its worker up to other jobs. Where the children of an op are
// independent (FanOut, CancelFanout, WaitersStorm) the floor is the
// busiest worker's share, ceil(n/GOMAXPROCS) children on one goroutine,
// with no cost of spreading them: when GOMAXPROCS divides n that is the
// total work over the workers, which no schedule beats. The other floors
// run on one goroutine: a runtime could overlap a little of them across
// cores (another worker running a job while its launcher allocates the
// next), but only by moving each job between the cores' caches, which
// costs more per job than the pop, call and add it could take off the
// launcher. Per workload:
//
// JobCreate: allocate a job, push it on the ring, pop it, call its empty
// body (an indirect call that cannot be inlined) and publish its
// completion: the life of a launched job, none of which can be skipped.
//
// AwaitCached: an acquire load of the finished job's state and loads of
// its value and error; an await cannot read less.
//
// AwaitPending: JobCreate's floor with a body that stores the value,
// then the await's load of it. No park and wake: a runtime may run a
// child that its awaiter finds unstarted inline (kc does), so a hand-off
// is not work the workload requires.
//
// CancelFanout: resume the parked children (coroutines), each running
// the rest of its body and publishing its completion: the busiest
// worker's share, the finding and signalling of the children left out.
//
// WaitersStorm: allocate the pending result; launch the awaiters (a job
// record each, through the ring) on pooled coroutines, each registering
// on the result's waiter list and parking; complete the result; resume
// each waiter, which reads the value and completes: the busiest
// worker's share of the awaiters. It parks every awaiter, where the
// workload lets one that has not parked by the completion take the fast
// path; the floor stays below the workload as long as most of them park
// (each awaits right after it passes the gate).
//
// NestedScopes: 100 nested non-inlined calls, each allocating a scope
// record linked to its parent and checking it on the way out (one
// load) for children to wait for.
//
// FanOut: the busiest worker's share of the op: ceil(n/GOMAXPROCS)
// launches, each running the task.
//
// ChanPingPong: the partner is a coroutine; a round trip is a switch to
// it and a switch back, the least two rendezvous hand-offs between two
// stacks take.
//
// ChanBuffered: the sender is a coroutine that fills a lock-free buffer
// of ChanBufferedCap and parks when it is full; the receiver empties it:
// per value a store and a load, per ChanBufferedCap values one round
// trip of switches.
//
// Select: two such senders, one buffer each; per select a pseudo-random
// bit (a select picks among ready cases at random) and a take from the
// first ready buffer in that order.
//
// SleepWake: read the monotonic clock until SleepWakeDelay has passed;
// nothing that sleeps may wake sooner. Not time.Sleep: parking only adds
// to the delay, and a runtime that hands the wake-up to a spinning
// worker can beat time.Sleep.
//
// # Latency and the slowed peer
//
// SampleLatency times single operations of JobCreate (Launch into a warm
// nursery, then Join) and AwaitPending (one op) with time.Now deltas, for
// percentiles, on the backends, the peers and the floor (one floor op).
// NewSlowed and SlowedBench give peer-go's benchmark of an unsized workload
// with a calibrated extra cost per op, to check that the regression gate
// detects a known slowdown; Slowed documents exactly how.
//
// # Running
//
// The measured numbers are in the report that one command makes:
//
//	go run ./cmd/kcbench run -o reports/baseline
//
// runs the conformance suite, then every workload on every backend, peer and
// floor in interleaved rounds, and writes reports/baseline/report.md, with the
// machine it ran on in machine.md beside it. The same benchmarks under go test:
//
//	go test -run='^$' -bench=. -count=10 ./perf/ | tee new.txt
//	go run ./cmd/kcbench compare -col /backend new.txt
//
// Add -benchtime=100ms for a quick look. go test runs every benchmark in
// one process, so a benchmark pays for the goroutines and heap of those
// before it (each collection walks every goroutine the process ever made):
// after CancelFanout's large sizes, an allocating row such as JobCreate's
// floor runs slower. kcbench run gives each workload and size a process
// of its own. Under -race a program may have only 8128 live goroutines, so
// CancelFanout with n >= 10000 cannot run on the goroutine backend or the
// peers with the race detector; `go test ./perf/` (no -bench) runs every
// workload on every backend with small n and is race-clean.
package perf
