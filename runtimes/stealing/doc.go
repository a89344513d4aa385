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
// whichever goroutine is pinned to its P (runtime.procPin, as sync.Pool does):
// pinned, nothing else can run on that P, so the owner pushes without a lock
// or CAS. Spawn from any goroutine pins, puts the task in its P's LIFO slot
// (the previous occupant moves to the FIFO tail, or is dropped if an await
// already ran it inline), unpins and wakes a worker if needed. Pinned
// sections are a bounded number of atomic operations: they never block,
// allocate or lock. A full ring moves half of itself, with the new task, to
// the injector, a global mutex-protected FIFO that also takes spawns from a
// P beyond the rings (GOMAXPROCS raised after New).
//
// Workers are goroutines, not bound to a P. A worker pops from the ring of
// the P it happens to run on (LIFO slot first, then FIFO), checks the
// injector first on every 61st task (fairness) and whenever its ring is
// empty, and otherwise spins: it steals half of another ring's FIFO with one
// CAS on that ring's head (like runqgrab), yielding between rounds; in its
// last round it takes another ring's LIFO slot if that held the same task
// across a Gosched (a task about to be run inline by its spawner's await is
// left alone). See ring.go for the ring's memory-order argument.
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
// waiting, so a hand-off can fail but never be lost. No wakeup is lost
// because both sides use a Dekker pair of sequentially consistent atomics:
// the publisher stores the task and then loads the counters; a worker going
// idle decrements the counters and then loads every queue.
//
// # Blocking
//
// Blocking the runtime can see (Await, Join, Sleep, WaitAll, AwaitAll: Park
// with a worker Parker) compensates rather than switching stacks: Park gives
// the worker's running slot back and, if work is queued, wakes or starts
// another worker. On wake-up the task finishes without a slot, recorded as
// one unit of debt on a per-P shard; the next worker to end a task (workers
// are interchangeable) pays it by going to the idle pool (at most target
// idle workers are kept; more exit), so a mass wake-up (cancelling
// thousands of sleepers) touches no shared counter. Compensation costs nothing on
// the hot paths (run to completion, the core's inline run of an awaited
// unstarted child) and one goroutine hand-off per real block. Parking tasks
// on pooled coroutines (iter.Pull) would instead cost a coroutine switch
// (~120 ns round trip) on every task, and Spawn could not hand a task to a
// coroutine without knowing whether it will block.
//
// Blocking it cannot see (a Go channel, a mutex, a syscall in a body) is
// handled by the monitor goroutine (monitor.go): while work is queued it
// ticks every 500 us, and if some queue held runnable work at two ticks in a
// row with nothing taken from it in between, it grants one temporary worker
// (at most MaxExtra); after 4 calm ticks it takes one back, and with nothing
// queued it takes them all back and sleeps until a Spawn wakes it (one atomic
// load in Spawn), so an idle executor costs no CPU.
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
//     Park/unpark is kc.Parker (a one-shot semaphore), so the pending_unpark
//     latch and park_if re-checks live in the core's wait nodes.
//   - Queues are per P, not per worker, and new work goes to the spawner's
//     P (locality, as in Go) rather than round-robin; balance comes from
//     stealing and the injector. Affinity of wake-ups is left to Go.
//   - There is no sleep queue: timers are time.AfterFunc.
//   - A lone spawned task sits in its spawner's LIFO slot; another worker
//     takes it only after it stayed there across a spin (a few us), which is
//     what lets an await run it inline.
//   - Horizontal scaling counts "no task left its queue for two ticks" as a
//     stale heartbeat; temporary workers retire after their task, not after
//     an idle timeout. No stall diagnostics.
//
// # Costs
//
// Spawn: a pin, one swap, up to two stores, four loads, no allocation. A
// worker's pop: one swap or one CAS. Stealing n tasks: n loads and stores
// and one CAS. Park by a worker: two atomic adds and a scan of the rings'
// heads (O(GOMAXPROCS)) plus, if work is queued, a goroutine hand-off.
package stealing
