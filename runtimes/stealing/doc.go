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
// Workers are goroutines, not bound to a P. A worker pops from the ring of
// the P it happens to run on (LIFO slot first, then FIFO), checks the
// injector whenever its ring is empty and, on every 61st task, first (and
// its FIFO before its LIFO slot: the fairness rule), and otherwise spins: it
// steals half of another ring's FIFO with one CAS on that ring's head (like
// runqgrab), yielding between rounds; in its last round it takes another
// ring's LIFO slot if that held the same task across a Gosched (a task about
// to be run inline by its spawner's await is left alone). The ring type in
// queues.go gives the memory-order argument, and ring.put the one for the
// plain stores on Spawn's path.
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
// worker that holds a slot or is woken for it, with no help from the
// monitor. Both sides use a Dekker pair of sequentially consistent atomics:
// the publisher stores the task and then loads the counters; a worker going
// idle decrements the counters and then loads every queue. Spawn's store is
// the swap of the LIFO slot, which also covers the task it displaces to the
// FIFO: that one is published with a plain tail store, as in the Go runtime
// (see ring.put). A waker's units are provisional (it takes the spinning
// token, then a slot, and gives both back if the add overshot the target),
// so after giving them back wake looks at the counters again (see wake for
// the interleaving this closes). Two tests check the invariant with the
// monitor out of the way (MaxExtra(0), so a stall is never rescued):
// TestWakeWithoutBackstop launches 3000 small bursts of tasks from one body
// while the other worker keeps going idle, and TestWakeOvershootRetire forces, through a test
// hook in wake, the one interleaving known to have lost a wake-up. Both run
// in CI, with and without the race detector.
//
// # Blocking
//
// Blocking the runtime can see (Await, Join, Sleep, WaitAll, AwaitAll: Park
// with a worker Parker) compensates rather than switching stacks. Park first
// yields a few times (Parker.Spin), since the partner of a channel wait
// often answers at once; if the wake has not come, it gives the worker's
// running slot back and, if work is queued, wakes or starts another worker.
// A Park from a goroutine that is not a worker just waits. On wake-up the
// task finishes without a slot, recorded as one unit of debt on a per-P
// shard; the next worker to end a task (workers are interchangeable) pays
// it by going to the idle pool (at most target idle workers are kept; more
// exit), so a mass wake-up (cancelling thousands of sleepers) touches no
// shared counter. Compensation costs nothing on the hot paths (run to
// completion, the core's inline run of an awaited unstarted child) and one
// goroutine hand-off per real block.
//
// Why a parked task keeps its goroutine rather than being a coroutine
// (iter.Pull) that gives its stack up: a coroutine round trip costs on the
// order of 100 ns on every task, and Spawn cannot know whether a task will
// block; Park would have to know which coroutine the parking goroutine is,
// and Go has no goroutine identity (a body that awaits with its parent's
// *Job would park the wrong one); and resuming a parked coroutine is not
// cheap either, as its stack is cold by then. The two ways of parking are
// measured side by side by BenchmarkGoroutineWakeFloor and
// BenchmarkCoroutineResumeFloor in this package; perf's CancelFanout floor
// (backend=floor) is the coroutine one. So a cancelled parked child costs a
// goroutine wake-up, a run to the end of its body (which stops its Sleep
// timer and ends its job) and a goroutine exit: on the order of a
// microsecond, most of it Go's own wake-up and exit, the rest the core's
// walk (a lock section and a few atomics per child).
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
// (one atomic load in Spawn), so an idle executor costs no CPU.
//
// Close waits for every goroutine the executor started (workers, monitor).
// A body that calls runtime.Goexit ends its worker goroutine; the worker's
// deferred handler gives its slot back and wakes a replacement.
//
// # Departures from spec 05
//
//   - Workers are goroutines on Go's scheduler, not OS threads, and a
//     "fiber" is the worker's goroutine stack: there is no control word and
//     no PARKED fiber state. A task that blocks keeps its goroutine; the
//     worker slot moves to another goroutine instead (Go's M/P hand-off).
//     Parking is kc.Parker, a one-shot semaphore that the core signals
//     itself, so the pending_unpark latch and park_if re-checks live in the
//     core's wait nodes.
//   - Queues are per P, not per worker, and new work goes to the spawner's
//     P (locality, as in Go) rather than round-robin; balance comes from
//     stealing and the injector. Affinity of wake-ups is left to Go.
//   - There is no sleep queue: timers are time.AfterFunc.
//   - A lone spawned task sits in its spawner's LIFO slot; another worker
//     takes it only after it stayed there across a spin (a few us), which is
//     what lets an await run it inline.
//   - Horizontal scaling counts "no task left its queue for two ticks" as a
//     stale heartbeat, and its rate limit is per tick, not per worker: the
//     number of temporary workers doubles while stalled ticks follow each
//     other, bounded by the queued tasks (spec 05 adds one per SCALE_INTERVAL, which would take
//     10 000 intervals to unblock a chain of 10 000). Temporary workers
//     retire after their task, not after an idle timeout. No stall
//     diagnostics.
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
// Spawn: a pin, one swap, up to two stores (plain on amd64), a few loads,
// no allocation. A worker's pop: one swap or one CAS. Stealing n
// tasks: n loads, n plain stores and one CAS. A worker runs its tasks with
// Task.RunOn on a kc.Worker of its own, so children of one parent that end
// in a row on it release the parent once (it flushes before it spins,
// sleeps or exits). Park by a worker: one atomic add and a scan of the
// rings' heads (O(GOMAXPROCS)), plus a goroutine hand-off if work is
// queued; its return: one add on the P's debt shard. A worker ending a task
// checks the debt shards (one load per P). An idle executor: no CPU (the
// monitor and idle workers are blocked). A launched job, end to end (the
// core's allocation from a per-P slab and attach, Spawn, a pop, the run and
// the release): on the order of 100 ns, of which the job's allocation and
// the two locked read-modify-writes (the attach CAS on the parent's state
// word and Spawn's swap) are most; the swap is also Spawn's half of the
// wake protocol, which is why it stays. An Await of a finished job: one
// atomic load in the core, a few ns.
package stealing
