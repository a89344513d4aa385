// Package stealing is the work-stealing backend of kc: tasks run to
// completion on a small set of worker goroutines, scheduled over per-P run
// queues with stealing, on the model of the Go runtime's own scheduler
// (runtime/proc.go: runqput, runqget, runqgrab, wakep, findRunnable).
//
//	ex, err := stealing.New()            // GOMAXPROCS workers
//	rt := kc.New(ex)                     // or runtimes.New("stealing")
//	defer rt.Close()
//
// # Queues and ownership
//
// There is one bounded ring (256 entries plus a one-entry LIFO slot) per P,
// the scheduler's processor slot, not per worker, because Spawn carries no
// caller identity and Go has no goroutine-local storage. A ring's owner is
// whichever goroutine is pinned to its P (runtime.procPin, through
// internal/goruntime, as sync.Pool does): pinned, nothing else can run on
// that P, so the owner pushes without a lock or CAS. Spawn from any goroutine
// pins, puts the task in its P's LIFO slot (the previous occupant moves to
// the FIFO tail, or is dropped if an await already ran it inline), unpins and
// wakes a worker if needed. Pinned sections are a bounded number of atomic
// operations: they never block, allocate or lock. A full ring moves half of
// itself, with the new task, to the injector, a global mutex-protected FIFO
// that also takes spawns from a P beyond the rings (GOMAXPROCS raised after
// New).
//
// Workers are goroutines, not bound to a P. A worker takes a ready
// coroutine first (see Parking), then pops from the ring of the P it
// happens to run on (LIFO slot first, then FIFO), checks the injector
// whenever its ring is empty, and otherwise spins: it steals half of
// another ring's FIFO with one CAS on that ring's head (like runqgrab),
// yielding between rounds; in the last round of each spin it takes another
// ring's LIFO slot if that held the same task across a Gosched (a task
// about to be run inline by its spawner's await is left alone). A worker
// whose last spin found a batch (half a ring) spins again and again for
// idleSpin before it goes idle, so that a worker that ran dry between two
// bursts of work takes the next burst's spawns as they come rather than
// waiting to be woken for them (spinFor). The fairness rule: on
// every 61st look for work a worker checks the injector, the yield list and
// the ready list first and its P's ready slot last, and every 61st task
// taken from a ring comes from its FIFO, not its LIFO slot (counted on the
// ring). A worker never looks at another P's queues while its own have
// work, so the work of a P that no worker gets to (none runs there, or its
// worker is blocked in a body) waits for a spinner or for the monitor (see
// Blocking). The ring type in queues.go gives the memory-order argument,
// and ring.put the one for the plain stores on Spawn's path.
//
// # Waking and parking workers
//
// The counters in schedState follow the Go runtime's wakep protocol. A
// publisher (Spawn, an overflow, an injector batch, a spinner that found
// work and was the last spinner) wakes one worker only if none is spinning
// and fewer than the target are running; the woken worker is born spinning,
// so a burst of spawns wakes workers one at a time, each woken spinner
// waking the next when it finds work. At most half of the running workers
// spin. An idle worker blocks on an unbuffered channel; a waker hands it a
// slot with a non-blocking send, or starts a new goroutine if none is
// waiting, so a hand-off can fail but is never lost.
//
// The invariant is that no wake-up is lost: a published task is found by a
// worker that holds a slot or is woken for it, with no help from the monitor.
// Both sides use a Dekker pair of sequentially consistent atomics: the
// publisher stores the task and then loads the counters; a worker going idle
// decrements the counters and then loads every queue. Spawn's store is the swap
// of the LIFO slot, which also covers the task it displaces to the FIFO: that
// one is published with a plain tail store, as in the Go runtime (see
// ring.put). A waker's units are provisional (it takes the spinning token, then
// a slot, and gives both back if the add overshot the target), so after giving
// them back wake looks at the counters again (see wake for the interleaving
// this closes). Tests check the invariant with no monitor at all (with
// MaxExtra(0) the monitor adds no worker, but it still moves a stuck P's
// work to the injector and wakes a worker for it, which rescues a lost
// wake-up): TestWakeWithoutBackstop launches 3000 small bursts of tasks
// from one body while the other worker keeps going idle,
// TestWakeOvershootRetire forces, through a test hook in wake, the one
// interleaving known to have lost a wake-up, TestIdleLooksAgain spawns,
// through a test hook in findWork, just before an idle worker's decrement,
// from outside, and TestIdleGivesSlotBeforeLook, through one in anyWork,
// just after its last look; TestConcurrentWakesSettle checks that
// concurrent wakes count each spinner once, and TestChannelWaitCompensates
// that Park's blocking path wakes a worker for the work queued behind it.
// All of them run in CI, with and without the race detector.
//
// # Parking
//
// A worker is a driver goroutine plus loop coroutines (coro.go), made with
// iter.Pull: the runtime's coroutine switch, about 60 ns each way. A loop
// coroutine runs the worker loop and the tasks it takes, on its own stack;
// the driver only switches between them. When a task body waits for a job
// (Join, Await, AwaitAll, the end of a Scope, WaitAll, Sleep: Park with a
// worker Parker that is not Quick), its coroutine yields to whoever resumed
// it, which hands the wait off to the core with Parker.Suspend and goes on
// with the worker loop: the driver on another loop coroutine (a ready one,
// else an idle one from the pool, else a new one), or the loop coroutine
// that the parked one ran nested under (below) on its own stack. The
// driver keeps its running slot throughout: a parked task costs a
// suspended coroutine, not a blocked worker, and needs no compensation.
//
// Nesting. A loop coroutine that its driver resumed, and that finds a
// ready coroutine between two tasks, resumes it itself (runNested: a call
// of its iter.Pull next from the loop coroutine's stack) instead of
// yielding it to the driver, and goes on with its loop once that one parks
// or yields. A park then costs one switch (back into the loop coroutine
// that is already running) instead of two (out to the driver, and into
// another loop coroutine), and so does the resume. A nested coroutine that
// finds a ready one hands it back (msgSwitch) and goes idle, as it would to
// the driver, so nesting is one deep: a chain of woken tasks is resumed one
// after another from the same loop coroutine, at two switches each, as
// before. A body's runtime.Goexit in a nested coroutine reaches the loop
// coroutine it ran under (iter.Pull passes it on to the caller of next),
// which ends too, between two tasks, and then its driver (see below).
//
// The hand-off protocol (kc's handoff.go has the core's half):
//   - The coroutine stores the Parker and its state (coroSuspending) and
//     yields; whoever resumed it (settle, on the driver's goroutine or a
//     loop coroutine's) reads them after the switch, which orders them.
//   - It marks the coroutine coroParked and then calls Suspend, a CAS on
//     the Parker's hand-off word. After a successful Suspend it never
//     touches the coroutine again: the wake may already be resuming it on
//     another goroutine. If Suspend fails, the wake came first, and it
//     resumes the coroutine at once.
//   - The wake (kc's Parker.signal, on the waker's goroutine) swaps the
//     hand-off word and, finding a resumer, calls coro.Resume, which marks
//     the coroutine coroReady and puts it in the ready slot of the waker's
//     P. The swap reads the CAS, so Resume sees the coroutine as the
//     driver left it, and everything the waker wrote before the wake.
//   - A ready slot (ready.go) is the coroutine counterpart of the Go
//     runtime's runnext: the driver next running on that P (usually the
//     waker's own, right after the waker's task) takes it before any task.
//     A wake that finds the slot's chain readyBatch long moves the chain to
//     the global ready list, so a cancel walk that wakes thousands costs
//     one list push per readyBatch wakes. After publishing, Resume calls
//     wake, exactly as Spawn does: the slot's CAS (or the list's count) is
//     the publisher's half of the Dekker pair with a worker going idle, and
//     anyWork counts ready slots and the list, so no wake-up is lost.
//   - A ready coroutine is resumed by the loop coroutine that found it
//     (between two tasks; nested, see above), or, if that one runs nested
//     itself, by the one it runs under, which it yields the ready one to
//     before it goes to the idle pool. A driver takes one coroutine at a
//     time: the head
//     of its P's slot, with a CAS that only the goroutine pinned to the P
//     makes (so it cannot suffer ABA), or a whole chain, with a swap to nil
//     (a spinner stealing another P's slot) or a pop under the list's
//     mutex, whose rest it parks in its own P's slot (or gives back to the
//     list, a listed chain's rest to the front, where it was) and wakes a
//     worker for. So each resume is taken once, and no coroutine waits in
//     a driver's hands: a body that blocks where the runtime cannot see (a
//     Go channel, a mutex) leaves the rest of a chain where other workers,
//     and the monitor, find it. The coroutine states (coro.go) are checked
//     where a wake could repeat: a second Resume panics instead of running
//     the coroutine twice.
//   - A coroutine parked long ago is cold: its record, its goroutine's g
//     (whose status the switch CASes) and the top of its stack are out of
//     the caches, and a resume meets those misses one after another (with
//     thousands parked, prefetching them made CancelFanout's op markedly
//     faster in an A/B of the two builds). So a driver that takes a
//     ready coroutine prefetches the next one in its chain (coro.prefetch):
//     its record, the start of its g and the stack around the address its
//     last park recorded, and those fills overlap the resume before it.
//     Prefetch instructions read nothing and cannot fault
//     (goruntime.PrefetchLines), which is what makes this safe: the
//     collector may have moved the parked stack and freed the old one (on
//     Windows, decommitted it), and a thief may have taken the chain
//     meanwhile; a prefetch of a stale address is only wasted.
//
// Park finds out whether its caller is a loop coroutine of this executor,
// and which, from the caller's goroutine identity (goruntime.G) in the g
// table (gtable.go), a hash table that grows and shrinks with the number
// of live coroutines and that Park reads without a lock. It takes the
// blocking path below instead where there are no goroutine identities
// (goruntime.GOK false; drivers then run the loop on their own stack), for
// a goroutine that is not a loop coroutine (the caller of Run, or a
// goroutine a body started), for a goroutine locked to its OS thread (a
// coroutine switch would have to change the lock, which the runtime
// forbids), and for channel waits (Quick Parkers), whose partner usually
// answers within a few goroutine switches, sooner than a hand-off pays.
// A body that returns with its thread still locked (LockOSThread without
// Unlock) has its lock dropped before its loop coroutine next switches
// (goruntime.UnlockOSThreadAll), since the runtime throws on a switch that
// changes the lock; on a goroutine of its own the lock would have ended
// with the goroutine and its thread.
//
// A task that waits for a short timer it armed (a Sleep, or a wait with
// a timeout, due within timerSpin) spins before it suspends, while no
// work is queued, so that its wake does not wait for an idle process's OS
// wake-up (timerwait.go; internal/sleepq's short.go has the why and the
// bounds). The spinning task keeps its worker's running slot, as any
// running task does, and does not count as spinning: the wake protocol is
// unchanged.
//
// The idle pool is unbounded: after a burst of parked tasks it holds as
// many coroutines as were parked at once, so a load that parks thousands
// in every round reuses them instead of making and ending coroutines. The
// monitor follows the load down: every trimEvery it ends half of the
// pool's low-water mark since the last trim (coroutines no round needed).
// A driver keeps up to 16 idle coroutines in a stash of its own, taken and
// filled without a lock, and moves them to the pool under one lock when the
// stash is full or the driver stops running tasks (so trims and Close see
// them). A put into an empty pool wakes a monitor that sleeps with no trim
// pending. Close stops every pooled coroutine; none is parked or ready
// then, since Close comes after every job is terminal.
//
// Job.Yield on a loop coroutine with work queued (a task in a ring or the
// injector, a ready coroutine) is a yield to the back of the line (Yield,
// kc.Yielder): the coroutine goes to the yield list and the worker loop
// goes on without it (on another loop coroutine of the driver, or on the
// one it ran nested under), so the yielder's worker runs the
// queued tasks instead of spinning in runtime.Gosched. Drivers take the
// yield list after their ring, the injector and a look at the other Ps'
// rings (a worker whose goroutine moved to another P would otherwise take
// the yielder back while the tasks it waits for sit on the P it left), and
// on the fairness tick right after the injector. With nothing queued, or
// off a loop coroutine, Yield is runtime.Gosched; on a loop coroutine
// whose task has found nothing queued osYieldAfter times in a row, each
// further one also gives the thread up to the OS (sched_yield on Linux),
// so that a poller waiting for a task on another worker does not hold the
// CPU that the OS may have put that worker's thread on (see Yield).
//
// A body that calls runtime.Goexit ends its coroutine; iter.Pull passes the
// Goexit on to whoever resumed it (a loop coroutine it ran nested under
// ends too, and passes it on in turn) and so to the driver, whose deferred
// handler gives its slot back and wakes a replacement, as for a plain
// worker.
//
// # Blocking
//
// Waits that do not suspend a coroutine (see Parking) compensate rather than
// switch stacks. Park first yields once (Parker.SpinLocal, through its P's
// local run queue, so a ping-pong stays on one P; once, so that a pair whose
// yielder another P stole parks, and its partner's wake brings it back to the
// partner's P), since the partner of a channel wait often answers at once, and
// the channel then skips its cancel hook (Parker.Wait registers it only when
// the wait blocks). A wait on a buffered channel (Parker.Batch: a Send on a
// full buffer, a Recv on an empty one, a Select with a case on a buffered
// channel) yields once through runtime.Gosched instead (Parker.SpinBatch), as
// the goroutine and vcore backends do: its partner answers only after filling
// or draining the buffer, and the pair runs in batches on one P with either
// yield, but with the local yield the runtime's other threads sleep, and the
// few such waits that do park are then readied, as far as a count of the
// process's futex calls shows, by waking a sleeping thread from the running one
// (Gosched wakes an idle P, which keeps a thread spinning). If the wake has not
// come, it gives the worker's running slot back and, if work is queued, wakes
// or starts another worker. A Park from a goroutine that is not a worker just
// waits. On wake-up the task finishes without a slot, recorded as one unit of
// debt on a per-P shard; the next worker to end a task (workers are
// interchangeable) pays it by going to the idle pool (at most base idle
// workers are kept, the target without the monitor's extra ones; more
// exit), so a mass wake-up touches no shared counter.
//
// Blocking it cannot see (a Go channel, a mutex, a syscall in a body) is
// handled by the monitor goroutine (monitor.go): while work is queued it
// ticks every 500 us, and if some queue held runnable work at two ticks in
// a row with nothing taken from it in between, it grants temporary
// workers, one per stuck queue, doubling their number while stalls follow
// each other, but never more than there are queued tasks (nor more than
// MaxExtra, by default in effect no cap): 10 000 tasks blocked at once on
// Go channels, each waiting for a later one, get their 10 000 goroutines
// in milliseconds. After 4 calm ticks it takes half of them back, and with
// nothing queued it takes them all back and sleeps until a Spawn wakes it
// (one atomic load in Spawn), so an idle executor costs no CPU. A queue is
// a P's ring with its ready slot, or the global queues (injector, ready
// list, yield list) together. When MaxExtra is reached, so that it may add
// no worker, the monitor moves the work of each stuck P to the injector
// and the ready list instead, where every worker's fairness rule finds it
// within 61 looks for work: with fewer workers than Ps, work spawned on a P
// that no worker runs on would otherwise wait for as long as the workers
// find work on their own Ps, since only a worker that runs dry spins and
// steals. This costs the workers nothing: the monitor does it.
//
// Close waits for every goroutine the executor started (drivers, the
// monitor) and then stops the idle loop coroutines.
//
// # Departures from spec 05
//
//   - Workers are goroutines on Go's scheduler, not OS threads, and a
//     fiber is a loop coroutine: it is not one task's stack but runs the
//     worker loop, so a fiber that parks holds the task it parked in, and
//     the worker goes on on another fiber. There is no control word: a
//     fiber's state (coroState) is a plain field handed from owner to
//     owner, and the race between park and unpark is decided by the
//     Parker's hand-off word (kc.Parker.Suspend), which plays the part of
//     pending_unpark; park_if re-checks live in the core's wait nodes.
//   - A woken fiber goes to the ready slot of the waker's P (runnext), or
//     in batches to a global ready list, not to the inbox of the worker it
//     last ran on: its stack is cold either way, and the waker's worker is
//     usually the one about to look for work.
//   - Channel waits, waits from goroutines locked to their thread and
//     every wait where goroutine identities are not available block the
//     goroutine instead of parking a fiber; the worker slot then moves to
//     another goroutine (Go's M/P hand-off).
//   - Queues are per P, not per worker, and new work goes to the spawner's
//     P (locality, as in Go) rather than round-robin; balance comes from
//     stealing and the injector. Affinity of wake-ups is left to Go.
//   - The sleep queue (internal/sleepq) is a heap of deadlines per P, each
//     fired by one Go runtime timer on a goroutine of its own, instead of
//     a queue that a monitor drains: timers fire whatever the workers do.
//   - A lone spawned task sits in its spawner's LIFO slot; another worker
//     takes it only after it stayed there across a spin (a few us), which is
//     what lets an await run it inline.
//   - Horizontal scaling counts "no task left its queue for two ticks" as a
//     stale heartbeat, and its rate limit is per tick, not per worker: the
//     number of temporary workers doubles while stalled ticks follow each
//     other, bounded by the queued tasks (spec 05 adds one per SCALE_INTERVAL,
//     which would take 10 000 intervals to unblock a chain of 10 000).
//     Temporary workers retire after their task, not after an idle timeout. No
//     stall diagnostics.
//   - The starvation escape hatch comes after the fact: spawns and wakes
//     always go to their P's queues, and the monitor moves the work of a
//     P whose queues stay stuck to the global queues, when MaxExtra keeps
//     it from adding a worker (see Blocking).
//
// # Costs
//
// Orders of magnitude; the measured numbers, for every workload against the
// other backends, the peers and the floor (perf, backend=floor), are in the
// report that
//
//	go run ./cmd/kcbench run -o reports/baseline
//
// writes to reports/baseline/report.md, with the machine it ran on in
// reports/baseline/machine.md.
//
// Spawn: a pin, one swap, up to two stores (plain on amd64), a few loads, no
// allocation. A worker's pop: one swap or one CAS. Stealing n tasks: n
// loads, n plain stores and one CAS. A worker runs its tasks with Task.RunOn
// on the kc.Worker of its loop coroutine, so children of one parent that end
// in a row on it release the parent once (it flushes before it spins, sleeps
// or exits, and when it switches to a woken coroutine it passes the batch on
// to it, or flushes). Park of a loop coroutine: a g table probe, one CAS
// and one coroutine switch out of a nested coroutine (back into the loop
// coroutine it ran under), two out of one its driver resumed (out, and
// into the next loop coroutine, from the driver's stash, else the pool);
// its wake: a swap, a pin and a CAS on the ready slot, and a wake check,
// then one switch when a loop coroutine resumes it nested (two when the
// one that found it runs nested itself, or when a driver takes it after a
// park), and the prefetch of the next in its chain (16 prefetch
// instructions in three calls). Park on the blocking path: one atomic add
// and a scan of the rings' heads (O(GOMAXPROCS)), plus a goroutine hand-off
// if work is queued; its return: one add on the P's debt shard. A worker
// ending a task checks the debt shards (one load per P) and, before the
// next, its ready slot and the ready list (two loads). An idle executor: no
// CPU (the monitor and idle workers are blocked). A launched job, end to end
// (the core's allocation from a per-P slab and attach, Spawn, a pop, the run
// and the release): on the order of 100 ns, of which the job's allocation
// and the two locked read-modify-writes (the attach CAS on the parent's
// state word and Spawn's swap) are most; the swap is also Spawn's half of
// the wake protocol, which is why it stays. An Await of a finished job: one
// atomic load in the core, a few ns.
//
// # Where it stays behind its peers
//
// (kcbench run sets every backend against the best peer and against the
// floor, the irreducible work of each workload in Go, in one run; the
// report above holds one.) It is ahead where a task does not wait
// (JobCreate, FanOut, NestedScopes) and where a parent awaits the child it
// has just launched, which it runs inline (AwaitPending, and its latency).
// On the channel workloads it is about even with Go's channels: a channel
// wait spins on its P's local run queue before it blocks, and registers
// for cancellation only if it does block. It stays behind where every
// task parks and is woken, and there the floor is a fraction of the best
// peer's time: the gap is this design's work, not Go's.
//
//   - CancelFanout (n tasks asleep, then one Cancel). Per child: the cancel
//     walk's visit, the stop of its Sleep's timer (a CAS), a wake into a ready
//     slot, a switch into a coroutine stack that went cold when it parked and
//     one back, the end of its job and the release of its parent. The peer
//     (goroutines blocked on ctx.Done) pays a goready, one goroutine switch
//     and an exit. Halving the switches needs a switch from one coroutine
//     straight to another, which Go offers only inside package iter; emulated
//     with iter.Pull's next and yield, called from whichever goroutine holds
//     the handle, it measures even, because the switch that stays, into the
//     cold stack, is the one that costs: with thousands of children its
//     misses are a large part of a resume, which is why a driver prefetches
//     the next ready coroutine while it resumes one (see Parking). The rest
//     is spread over the walk, those resumes and the collector's scan of
//     every parked coroutine's stack.
//   - WaitersStorm (32 awaiters of one deferred). Most ops run on the worker of
//     the P their root runs on: nearly all their tasks start there and their
//     wake's chains are resumed there. Now and then a spawn or a wake finds the
//     other worker idle and wakes it; it reaches the other P only once Go and
//     the OS have scheduled it, long after, and then steals a share of a later
//     op's awaiters (or a ready chain), so that op runs on both Ps, with the
//     deferred's lock and the nursery's state word moving between the cores and
//     the root polling for the awaiters still running over there. That costs
//     more than it saves for 32 short tasks: with one worker, or with those
//     wakes held back while a worker runs, the row is measurably faster, but a
//     mass wake (CancelFanout) then lacks the second worker it needs, and
//     spawned work would wait for the running worker instead of running in
//     parallel. With one P the gap shrinks but stays. Per awaiter the executor
//     pays four coroutine switches (out to the driver and into the next loop
//     coroutine at the park; at the resume, in from the loop coroutine that
//     resumes the chain, and back out to it once the awaiter's task has
//     ended: nesting saves nothing on a chain), the largest item, where
//     the peer's goroutine takes two goroutine switches; the core pays a job
//     (allocation, the nursery's hold taken and given back, Spawn and a pop)
//     and the wait's registrations: on the deferred's list under its lock, the
//     waiting job's listing on the nursery under the nursery's lock and its
//     cancel hook under its own (both taken again at the end, to unlink the
//     hook and to unlist the job), where the peer takes the channel's lock
//     once.
//   - JobCreate's latency (Launch into a nursery, then Join from outside it).
//     The child goes through the executor, so the joiner parks and is woken:
//     running nested under the loop coroutine that runs the child, it takes
//     two coroutine switches (out to that one at the park, back in at the
//     wake), as many as the peer's go statement and WaitGroup.Wait take
//     goroutine switches. The child almost always
//     runs on the joiner's worker, from its P's LIFO slot, and the joiner is
//     resumed from its P's ready slot. The core's part (the job and its wait
//     node, their allocation, locks and state words) is the largest share of
//     the op, then the switches and the driver's hand-offs, then the rest of
//     the executor (Spawn, the pops, the wake and ready checks). Its tail has
//     two causes that the peer's op does not have. The op allocates its job
//     (its wait node comes from the core's per-P cache), and after the
//     collection that precedes the timed ops many of the heap's free pages are
//     back with the OS, so an op that takes a new span (one in 56 for the
//     1024-byte slabs of seven jobs) page-faults, where peer-go's op allocates
//     nothing. The latency floor carves and writes its records before the
//     timed ops, so its p99 shows what a launch reaches whose memory is
//     resident: a design that closes this part of the tail would have the
//     job slabs written before use off the launching path (a per-P stash
//     that an idle worker fills), not built. And the other worker, finding
//     nothing, goes idle after its spin (a short one: it found no batch,
//     see spinFor), so now and then a launch wakes it (a futex wake on the
//     launching thread).
//   - JobCreate against its floor (empty children launched in a loop into
//     one nursery). The launching worker spends its time in Launch and the
//     other worker runs the children, which crosses the cores with every
//     job, where the floor's one goroutine queues and runs each job in its
//     own cache. And the launcher outpaces the children's worker, so
//     thousands of launched jobs wait in the queues at any time; the
//     collector, whose cycles come every few megabytes of jobs allocated,
//     marks every one of them at every cycle, with its write barriers on
//     meanwhile, while the floor's queue holds one. A launcher that yields
//     once the queues are long (Cilk's bound on space) keeps them short, and
//     the op faster, by the collector's share. The executor does not do it
//     for the launcher: it would make a launch wait for queued tasks to
//     start, and a launcher that holds a lock its children take would then
//     wait behind a worker blocked in their Lock, out of the executor's
//     sight, for a temporary worker (with none allowed, such an executor
//     deadlocks in TestLaunchUnderLock). A body that launches in a tight
//     loop and holds no such lock can pace itself: Job.Yield every few
//     hundred launches runs queued children and comes back.
//
// A profile of a workload next to its best peer's shows where the time
// goes, for example:
//
//	go run ./cmd/kcbench profile -bench CancelFanout -n 10000 -backend stealing -vs peer-context
package stealing
