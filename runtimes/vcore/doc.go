// Package vcore is the "virtual cores" backend of kcbench: spec 05's fiber
// scheduler as closely as Go allows. A fixed number of virtual cores (Go's
// P, spec 05's worker slot) each have an inbox of runnable tasks and at
// most one owner at a time: a goroutine locked to an OS thread with
// runtime.LockOSThread (and, with Pinning(true), pinned to a CPU with
// sched_setaffinity on Linux; on other OSes New then returns a *PinError
// matching ErrPinningUnsupported). Owners run tasks to completion on their
// own stack, or, where goroutine identities work and nothing is pinned, on
// coroutines that hold the tasks that park (see Park below). vcore builds
// and runs on every OS Go supports.
//
//	ex, err := vcore.New(vcore.Workers(4), vcore.Pinning(true))
//	if err != nil { ... }            // *OptionError or *PinError, never a crash
//	rt := kc.New(ex)
//
// # The model
//
// Queues (queue.go). Each core's inbox is a bounded lock-free MPMC ring
// (Vyukov's); the global run queue is a 4096-slot ring plus a mutex-guarded
// overflow list, so Spawn never blocks. Spawn puts a task on the inbox of
// the core picked by a multiplicative hash of the task's address (round
// robin in effect, with no shared counter), or on the global queue when
// that inbox is full. A child spawned by an owner (a task launching a
// child) goes first into its core's one-task next slot (Go's runnext), if
// that holds nothing still to run; a Finished task found there is dropped.
// An owner looks at its next slot and its inbox, the global queue (the
// global queue and its inbox first, every 61st poll: the fairness rule,
// so that a task that keeps launching its successor into the next slot
// starves neither), then steals from other inboxes and from other cores'
// ready queues holding more than one context; an owner about to sleep also
// takes another core's next slot or a lone ready context, and sysmon moves
// a task that sat in a next slot for a whole tick to the global queue.
//
// Owners (core.go, worker.go, idle.go, pool.go, ctx.go, drive.go). A core's
// word holds its owner's id and one of four coreStates (Free, Running,
// Sleeping, Closed; each documented with its legal moves), changed only by CAS.
// An owner holds its thread locked while it runs a task. With nothing to do it
// unlocks it (unless pinned) and keeps its core and yields its P; then, if it
// may spin (pinned owners and contexts, see Park below, always may, other
// owners while fewer than half the cores' owners spin), it spins for the Spin
// budget (default 20 µs, yielding every 16 polls), and sleeps on its wake
// channel, at once if it may not spin; whoever moves the core from Sleeping
// back to Running sends the token (a pusher that sees Sleeping does), and a
// pusher that finds a core Free starts an owner for it. Sleeping and waking are
// a Dekker handshake over sequentially consistent atomics (core.go). Owners are
// pooled: one whose owner stint ends waits for the next owner to start instead
// of ending.
//
// Park (executor.go, worker.go, ctx.go, drive.go). A task that blocks in a kc
// wait hands off its core, as Go's runtime does for a syscall. The owner
// unlocks its thread first; a wait the core expects to be answered at once
// (kc.Parker.Spin: a channel partner) gets a few yields to be woken with the
// core kept, and so does a wait for a timer the task armed due within the spin
// budget (timer.go), while no work waits for the core, for as long as the timer
// takes. Otherwise the core goes to the next owner if work waits (else it is
// marked Free), and the task waits in one of two ways:
//
//   - As a suspended coroutine, where goroutine identities work (amd64, arm64)
//     and owners are not pinned. An owner is then a task context (ctx.go,
//     drive.go, ctxpool.go): an iter.Pull coroutine that runs owner stints on
//     its own stack, resumed by an unlocked driver goroutine. Park suspends the
//     context, and whoever resumed it (its driver, or the context it runs
//     nested under) goes on at once with the core's next owner: a woken
//     context from the core's ready queue, granted the core, or a fresh owner
//     (the context it ran nested under, else an idle one). The wake puts the
//     context on the ready queue of the core it parked on (soft affinity) and
//     kicks that core; an owner that finds it there (its own core's queue
//     first, then other cores' as it steals: a lone one only before it
//     sleeps) hands it its core, ending its stint, and resumes it nested
//     (or, itself nested, leaves it to the context it runs under, and goes to
//     the pool), prefetching the next context of the queue meanwhile (its
//     record, its g and its stack: the memory of a task parked long ago is
//     cold). A context locks its thread while it
//     runs a task and unlocks it before every switch: a switch away from a
//     locked goroutine, or to a coroutine from a thread other than the one it
//     was made locked on, makes the Go runtime throw. A body that holds a
//     thread lock of its own when it parks, and a Quick wait (a channel
//     partner) after its spin, park as a goroutine instead (below), their
//     driver blocked with them.
//   - As a goroutine, otherwise: the goroutine waits, then takes its
//     previous core back if it is Free (soft affinity), else any Free core,
//     else finishes its body on a plain goroutine and retires to the pool
//     (the starvation escape hatch: a woken task never waits for a core).
//     It does not take a core from an owner that spins with nothing to
//     do: as an owner again, the body would hand the core off at its next
//     park (a pooled goroutine woken to own it, and the displaced spinner
//     retired), where a coreless body's park is a plain wait. Coreless,
//     its Launches go to inboxes, which the spinning owners poll; taking
//     their cores made every park-heavy workload slower (WaitersStorm,
//     CancelFanout, JobCreate's latency).
//
// Park learns whether its caller owns a core from the registry
// (registry.go), keyed by the calling goroutine's g (goruntime.G, a load)
// on amd64 and arm64: a context's own goroutine while it runs. Elsewhere it
// is keyed by the calling thread's id, exact because a locked thread runs
// nothing but its goroutine: threadID (tid_GOOS.go), gettid on Linux,
// thread_selfid on macOS, thr_self on FreeBSD, the Thread Environment
// Block's address on Windows. Where there is none (or it misbehaves, which
// threadIDsWork checks once), the registry stays empty and Park waits
// without handing its core off: slower, since sysmon must retake the core,
// but correct.
//
// Yield (yield.go). A task's stack is its goroutine's, so Job.Yield cannot move
// the task to the back of a queue: it lets other goroutines have the P
// (runtime.Gosched), an owner with its thread unlocked, keeping its core. A
// body that polls with Yield waits for a task running elsewhere; after
// osYieldAfter Yields in a row, each further one also gives the thread up to
// the OS (sched_yield on Linux), lest the poller hold the CPU the OS has put
// the awaited owner's thread on.
//
// Sysmon (sysmon.go). A monitor goroutine watches each core's heartbeat (a
// count of tasks started). A Running core whose heartbeat has not moved for 1
// ms while work waits (its inbox, its ready queue or the global queue is
// non-empty; a task sysmon itself moved there from a next slot counts from its
// next tick) is stuck in a body that blocked where the runtime cannot see (a Go
// channel, a mutex, a syscall): sysmon gives the core to a fresh owner, at most
// one per millisecond (SCALE_INTERVAL) and while fewer than TempWorkers (64)
// stuck goroutines hold a thread (base + K). The stuck goroutine finds out when
// its body returns and retires at once. Past that bound sysmon starts helpers
// (helper.go): unlocked goroutines without a core that run queued tasks and
// retire when they find none, so a blocked one costs a goroutine, not a thread.
// Their number doubles each tick in which the helpers took no task, bounded by
// the queued tasks: 10 000 tasks blocked at once on Go channels, each waiting
// for a later one, get their goroutines in milliseconds, where 10 000 threads
// would hit Go's fatal limit. Sysmon polls every 250 µs while tasks are queued,
// backs off to 8 ms while they are not, and blocks on a channel, using no CPU,
// after 20 ms with no active task.
//
// Shutdown. Close waits until active_tasks (Spawn +1, end of Run -1) is
// zero, sets stop, closes Free cores and wakes sleeping owners, which close
// their cores, unpin and unlock their threads and exit (a driver that was
// passing its core on as stop was set may leave it Free instead: nothing
// is queued, so no owner starts there); then it stops the
// idle contexts (on a goroutine of its own: its caller may be locked to its
// thread, and a switch to a context from there would make the runtime
// throw) and sysmon, and waits for every goroutine it started.
//
// Tests of the races. Where the protocol relies on a re-check after a CAS
// or a store, a window of a few nanoseconds that no workload hits, a test
// makes the racing move inside the window, every run, through a test hook
// (testhooks.go): a Spawn between pass's look for work and its CAS to Free
// (TestPassRechecksAfterFree), the stuck owner passing its core on before
// sysmon's retake CAS (TestRetakeLosesToOwner), a Spawn between sysmon's
// decision to sleep and its idle store (TestMonSleepSeesEarlySpawn).
// TestRetakeSkipsSleeping and TestCoresSettle check the core word's rules
// directly: no retake of a Sleeping core, and every core Sleeping or Free
// once nothing is active.
//
// # Departures from spec 05, and why
//
//   - Fibers are iter.Pull coroutines made unlocked, and a fiber holds its
//     thread locked only while it runs a task: a coroutine made on a locked
//     thread could only ever be resumed on that thread (the runtime throws
//     otherwise), so one body blocked on a Go channel would strand every
//     fiber parked on its thread. What a fiber owns is a core, not a
//     thread. Pinned owners and platforms without goroutine identities
//     have no fibers: a task's stack is its owner goroutine's, and what
//     moves at a park is the core.
//   - Parked tasks give their thread back. A parked task is a suspended
//     coroutine or a goroutine, not an OS thread: 10 000 tasks each joining
//     the next (the JoinChain case) would otherwise need 10 000 threads,
//     Go's fatal limit.
//   - No per-fiber control word or pending_unpark latch: kc.Parker is a
//     one-shot semaphore that already gives park_if its no-lost-wakeup
//     contract (a wake before Park makes Park return at once), and the wake
//     reason is CASed by the core before it signals the Parker.
//   - The inbox doubles as the stealable local run queue for new tasks,
//     and the ready queue holds fiber resumption entries; idle owners
//     steal from both (the MPMC ring and the ready queue's mutex make that
//     safe).
//   - No direct (hard-affinity) handoff: a woken fiber waits in its core's
//     ready queue for the core's owner to hand it the core, rather than
//     being switched to from the waker's stack; a task parked as a
//     goroutine resumes on its own goroutine.
//   - Timers are a sleep queue not drained by sysmon (internal/sleepq): a
//     heap of deadlines per P, each fired by one Go runtime timer, woken
//     by the netpoller: no O(N) drain, no 250 µs resolution, no sysmon
//     polling while any timer is armed, and a Stop is one CAS. In place of
//     an owner polling its sleep queue, an unpinned owner whose task waits
//     for a timer due within the spin budget spins for its wake, keeping
//     its core, while no work waits for the core (timer.go).
//   - Horizontal scaling retakes the stuck core rather than adding a core
//     beside it, so the stuck core's inbox is drained by its new owner (the
//     spec forbids stealing inboxes, and work must stay discoverable). A
//     temporary worker (the stuck goroutine, once free) has no core and
//     retires at once: TEMP_IDLE_TIMEOUT is zero. Past the cap K, the
//     temporary workers are coreless, unlocked helpers, whose number
//     doubles per stalled tick rather than growing by one per
//     SCALE_INTERVAL.
//   - Stall diagnostics are counters (Stats.Retakes), not backtraces.
//   - A core has a next slot beside its inbox, private to its owner but
//     for idle owners about to sleep and sysmon. A parent mostly awaits
//     its child at once and runs it inline; in an inbox each such child
//     left a stale entry that another core popped and dropped, with the
//     ring's and active_tasks' cache lines moving between cores for each.
//     In the next slot it stays on its own core, and the parent's next
//     Spawn drops it. Spawn wakes nobody for it: the owner is the caller.
//     Only with goroutine registry keys, where Spawn can tell an owner by
//     a load; a thread key is a system call.
//   - Unpinned owners are locked only while they run a task: they spin,
//     sleep and park with their thread unlocked, keeping their core
//     (idle.go). Spec 05's workers stay on their thread throughout, but in
//     Go a locked goroutine that blocks costs a thread hand-off each way,
//     13-100 µs a round trip (DESIGN.md's measured facts) against a few
//     hundred ns for a plain goroutine, and that round trip, paid at every
//     sleep and wake, put vcore several times behind the stealing backend
//     wherever tasks wait (channel ping-pong, many waiters of one job).
//     Pinned owners keep spec
//     05's locked workers: they never unlock until they give their core up.
//
// # Costs
//
// Orders of magnitude. The measured numbers, for every workload against the
// other backends, the peers and the floor, are in the report that
//
//	go run ./cmd/kcbench run -o reports/baseline
//
// writes to reports/baseline/report.md, with the machine it ran on in
// reports/baseline/machine.md.
//
//   - A launched job, Spawn to end, with its core's owner awake: a few
//     hundred ns, the job included. An await of a finished job: one atomic
//     load in the core, a few ns.
//   - Park's caller lookup (registry.self): a load of the goroutine's g
//     and a scan of a few registry slots, a few ns; keyed by thread, a
//     threadID is a system call (Linux, macOS, FreeBSD), on the order of
//     100 ns.
//   - A park that hands the core off and its wake-up, as a suspended context:
//     UnlockOSThread and LockOSThread, a CAS on the core's word at each hand of
//     the core, a registry slot freed and claimed (or moved, two stores, when
//     an owner hands its core to the woken context), a push and a pop under the
//     ready queue's mutex, a context to and from a driver's stash (no lock),
//     and two to four coroutine switches (two when the owner that resumes the
//     context runs it nested and is the fresh owner at its next park, four when
//     park and resume each go through a driver): a few hundred ns. As a
//     goroutine: the same locks and CASes, and the wake-up of a pooled
//     goroutine when work waits: on the order of a microsecond. A channel wait
//     answered while it spins keeps its core: a few goroutine switches.
//   - A wait for a timer due within the spin budget (a short Sleep): the
//     wake a few goroutine switches after the due time, for at most twice
//     the budget of CPU on a goroutine that yields at every look; AfterFunc
//     pays a registry lookup and a clock read for such a timer. A timer due
//     later is waited for as any park: no CPU.
//   - Waking a sleeping owner: a goroutine wake-up, a few hundred ns; for
//     a pinned owner, which sleeps locked, an OS wake-up of that very
//     thread (a futex wake on Linux), tens of µs. The yield before the spin
//     or the sleep (idle.go) lets a caller woken by a task run first.
//   - Pinning: one sched_setaffinity system call per pin and per unpin,
//     about a microsecond.
//   - An idle executor: no CPU once sysmon has blocked (20 ms after the
//     last active task) and the owners sleep.
//
// The costs particular to this backend have benchmarks of their own
// (BenchmarkSelf, BenchmarkPingPong, BenchmarkSpawnJoin, and
// BenchmarkAwaitPending, which reports hand-offs, steals and wakes per op):
//
//	go test -run x -bench . -count 10 ./runtimes/vcore
//
// # Where vcore stays behind the stealing backend
//
// (kcbench run -backends vcore,stealing measures both in one run, and its
// report's section "Backends against the fastest backend" gives each ratio;
// reports/baseline/report.md holds one such run.) On AwaitPending (an await
// of a child just launched, which the awaiter runs inline), FanOut,
// ChanBuffered and NestedScopes, vcore is about even with the stealing
// backend or ahead of it. It is behind on JobCreate, on the other channel
// workloads (ChanPingPong, Select) and on JobCreate's latency (a launch into
// a nursery and a join of it, one op at a time).
//
// On JobCreate a parent launches without waiting, so its children, all but
// the one in its core's next slot, go to the inboxes, spread over the
// cores, and each crosses to the core that runs it through an MPMC ring,
// with a CAS at each end, where the stealing backend's thief takes half a
// ring with one CAS. The inbox of the parent's own core, whose owner is the
// parent, is emptied by the other owners' steals, a task at a time, or,
// once full, through the global queue, which takes the live task at its
// head (dropStale).
//
// JobCreate's latency is set by where the child runs. With owners as contexts
// the joiner owns a core: its child goes to the core's next slot, its join
// suspends it and hands the core to a fresh owner, which runs the child and,
// finding the joiner ready, hands the core back (the other core's spinner
// leaves a lone ready context to its core: stealing the joiner would move the
// op across cores). With owners as goroutines the joiner, coreless once a
// park of its found no core free, sends each child to an inbox, where a
// spinning owner, or a sleeping one woken onto the joiner's P, runs it; were
// every owner to spin, the child would go mostly to a spinner on the other P
// and the joiner would be woken there, each op crossing Ps (findWork says why
// at most half of such owners spin). On AwaitPending that takes the next
// slot: with the child in an inbox, much of vcore's CPU time went to the
// ring's push and pop, the active_tasks add and the child's claim, each on a
// cache line another core also writes, as the idle core popped and dropped
// the stale entries. The next slot keeps all of that on the parent's core.
//
// Parked tasks are contexts (where owners are), so a wake is a push to the
// ready queue of the core the task parked on, and the woken run by
// coroutine switches on the owners' threads, without the Go scheduler,
// each owner prefetching the next context's cold memory while it resumes
// the one before, as in the stealing backend. What vcore pays on top, per
// park and per resume, is the core: the parked context's core goes to a
// fresh owner (a CAS on its word, the owner's registry entry, its thread
// lock) and the woken one is granted a core the same way, where the
// stealing backend's driver just takes the next coroutine. That keeps it
// behind on CancelFanout (thousands of parks and wakes) and WaitersStorm,
// and costs a workload whose coordinator parks once an op (FanOut/n=10: a
// root that launches ten children and waits for them) that hand-off at
// every op, which owners as goroutines did not pay: such a root, coreless
// once its first wake found no core Free, parked and woke as a plain
// goroutine. On
// the platforms where owners are goroutines (no goroutine identities, or
// pinning) each parked task is a parked goroutine, and each wake a
// goready: a pass through the Go scheduler, a return into a cold stack
// and a goroutine exit or a park in the owner pool per woken task, which
// is what contexts avoid. On SleepWake
// (a 1 µs timer sleep) both backends keep the sleeper spinning for its short
// timer (timer.go here, timerwait.go there) instead of leaving the wake-up
// to the OS.
package vcore
