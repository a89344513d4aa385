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
// idle decrements the counters and then loads every queue. Spawn's store is
// the swap of the LIFO slot, which also covers the task it displaces to the
// FIFO: that one is published with a plain tail store, as in the Go runtime
// (see ring.put).
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
// # Performance
//
// Medians of 10 runs on the 2-core development machine (Intel Xeon), all
// three backends and the peers, at commit 99e4376, made with
//
//	go test -c -o /tmp/perf.bench ./perf && cd perf &&
//	/tmp/perf.bench -test.run x -test.bench 'JobCreate|AwaitCached|AwaitPending|CancelFanout' -test.count 10 > bench.txt
//	go run golang.org/x/perf/cmd/benchstat -col /backend bench.txt
//
// (the same as go test -run x -bench '...' -count 10 ./perf; the raw
// results, all from this one run, are in testdata/bench-count10.txt; the
// machine is shared, and other quiet runs of the same code gave stealing's
// JobCreate 100-130 ns and its AwaitPending 120-145 ns; B/op omitted):
//
//	                        │   goroutine   │               stealing                │                 vcore                 │                 peer-go                  │             peer-errgroup             │               peer-conc                │              peer-context               │
//	                        │    sec/op     │    sec/op      vs base                │    sec/op      vs base                │    sec/op      vs base                   │    sec/op      vs base                │    sec/op     vs base                  │    sec/op      vs base                  │
//	JobCreate-2                691.7n ±  6%    153.9n ±  4%  -77.75% (p=0.000 n=10)    290.7n ±  2%  -57.98% (p=0.000 n=10)    528.5n ±  6%   -23.61% (p=0.000 n=10)      538.0n ± 14%  -22.23% (p=0.000 n=10)   559.0n ±  7%  -19.18% (p=0.000 n=10)     1235.5n ±  6%  +78.60% (p=0.000 n=10)
//	AwaitCached-2              2.567n ± 21%    2.281n ± 23%        ~ (p=0.143 n=10)    2.712n ± 20%        ~ (p=1.000 n=10)   18.065n ± 11%  +603.88% (p=0.000 n=10)      2.509n ± 15%        ~ (p=1.000 n=10)
//	AwaitPending-2             597.2n ±  4%    133.1n ±  8%  -77.72% (p=0.000 n=10)    319.4n ±  8%  -46.51% (p=0.000 n=10)    518.6n ±  6%   -13.15% (p=0.000 n=10)      655.8n ±  8%   +9.82% (p=0.000 n=10)   664.1n ± 13%  +11.22% (p=0.035 n=10)
//	CancelFanout/n=1000-2      884.8µ ±  4%    800.7µ ±  7%   -9.51% (p=0.001 n=10)   1288.4µ ± 22%  +45.61% (p=0.000 n=10)                                               526.1µ ± 18%  -40.54% (p=0.000 n=10)                                             371.6µ ±  5%  -58.00% (p=0.000 n=10)
//	CancelFanout/n=10000-2    12.978m ±  4%   15.973m ±  5%  +23.08% (p=0.000 n=10)   19.786m ± 10%  +52.46% (p=0.000 n=10)                                               8.754m ±  3%  -32.54% (p=0.000 n=10)                                             6.668m ± 20%  -48.62% (p=0.000 n=10)
//	CancelFanout/n=100000-2   150.19m ± 10%   155.52m ± 14%        ~ (p=0.218 n=10)   262.03m ± 19%  +74.47% (p=0.000 n=10)                                              201.12m ±  8%  +33.91% (p=0.000 n=10)                                             97.69m ± 12%  -34.96% (p=0.000 n=10)
//
//	                        │   goroutine    │                stealing                 │                  vcore                  │                peer-go                 │              peer-errgroup              │               peer-conc               │               peer-context                │
//	                        │   allocs/op    │ allocs/op   vs base                     │ allocs/op   vs base                     │ allocs/op   vs base                    │ allocs/op   vs base                     │ allocs/op   vs base                   │ allocs/op   vs base                       │
//	JobCreate-2                1.000 ±  0%     0.000 ± 0%  -100.00% (p=0.000 n=10)       0.000 ± 0%  -100.00% (p=0.000 n=10)       1.000 ± 0%        ~ (p=1.000 n=10) ¹     1.000 ± 0%         ~ (p=1.000 n=10) ¹     1.000 ± 0%         ~ (p=1.000 n=10) ¹   3.000 ± 0%  +200.00% (p=0.000 n=10)
//	AwaitCached-2              0.000 ±  0%     0.000 ± 0%         ~ (p=1.000 n=10) ¹     0.000 ± 0%         ~ (p=1.000 n=10) ¹     0.000 ± 0%        ~ (p=1.000 n=10) ¹     0.000 ± 0%         ~ (p=1.000 n=10) ¹
//	AwaitPending-2             2.000 ±  0%     1.000 ± 0%   -50.00% (p=0.000 n=10)       1.000 ± 0%   -50.00% (p=0.000 n=10)       3.000 ± 0%  +50.00% (p=0.000 n=10)       4.000 ± 0%  +100.00% (p=0.000 n=10)       4.000 ± 0%  +100.00% (p=0.000 n=10)
//	CancelFanout/n=1000-2     10.000 ± 10%     9.000 ± 0%   -10.00% (p=0.011 n=10)       9.000 ± 0%   -10.00% (p=0.011 n=10)                                                0.000 ± 0%  -100.00% (p=0.000 n=10)                                               0.000 ± 0%  -100.00% (p=0.000 n=10)
//	CancelFanout/n=10000-2     16.00 ±  0%     16.00 ± 0%         ~ (p=1.000 n=10) ¹     16.00 ± 0%         ~ (p=1.000 n=10) ¹                                               0.00 ± 0%  -100.00% (p=0.000 n=10)                                                0.00 ± 0%  -100.00% (p=0.000 n=10)
//	CancelFanout/n=100000-2    26.00 ±  0%     26.00 ± 4%         ~ (p=0.211 n=10)       27.00 ± 4%    +3.85% (p=0.011 n=10)                                                 0.00 ± 0%  -100.00% (p=0.000 n=10)                                                0.00 ± 0%  -100.00% (p=0.000 n=10)
//	¹ all samples are equal
//
//	                        │   goroutine   │               stealing                │                 vcore                 │             peer-errgroup             │             peer-context             │
//	                        │   sec/child   │   sec/child    vs base                │   sec/child    vs base                │   sec/child    vs base                │  sec/child    vs base                │
//	CancelFanout/n=1000-2      884.8n ±  4%    800.6n ±  7%   -9.51% (p=0.001 n=10)   1288.5n ± 22%  +45.63% (p=0.000 n=10)    526.1n ± 18%  -40.54% (p=0.000 n=10)   371.6n ±  5%  -58.00% (p=0.000 n=10)
//	CancelFanout/n=10000-2    1298.0n ±  4%   1597.0n ±  6%  +23.04% (p=0.000 n=10)   1978.5n ± 10%  +52.43% (p=0.000 n=10)    875.4n ±  3%  -32.55% (p=0.000 n=10)   666.8n ± 20%  -48.63% (p=0.000 n=10)
//	CancelFanout/n=100000-2   1502.0n ± 10%   1555.0n ± 14%        ~ (p=0.218 n=10)   2620.5n ± 19%  +74.47% (p=0.000 n=10)   2011.5n ±  8%  +33.92% (p=0.000 n=10)   976.8n ± 12%  -34.96% (p=0.000 n=10)
//
// Against the targets of issue 3:
//
//   - AwaitCached <= 5 ns on every backend: met (about 2-3 ns; one atomic
//     load in the core).
//   - JobCreate <= 80 ns and 5x faster than peer-go, at most 1 alloc: the
//     allocation target is met (Launch takes jobs from per-P slabs of four,
//     0.25 allocations per job); the time is not: 154 ns in this run, 3.4x
//     peer-go (529 ns); 100-130 ns in the quietest runs (about 4-5x). It
//     was 319 ns before the core's rework. What is left is the launching
//     body's own path, which no other core can share: the slab (a quarter
//     of a 512-byte allocation, with its zeroing and GC), the attach CAS on
//     the parent's state word, a counter increment, the LIFO-slot swap and
//     the ring push of the task it displaces, and the wake check. The
//     children themselves run on the other core and release their parent
//     once per batch (kc.Worker). Two changes to Spawn were faster in A/B
//     runs of patched builds and are not taken, because each can lose a
//     wake-up (the measurements are in the notes on issue 3): reading the
//     wake counters only when the FIFO was empty before the push (a thief
//     can take the older task between the push's head load and its tail
//     store; re-reading the head after the store to close that gap took
//     the gain back), and publishing the tail with a plain store, a release
//     store on amd64 like the Go runtime's StoreRel of runqtail, instead of
//     atomic.Store's XCHG, which waits for the slot's cache line (the wake
//     check's loads could then pass the tail store, breaking the Dekker
//     pair with a worker going idle; keeping it would need the fence on the
//     idle side instead: membarrier, an IPI on every idle transition).
//   - AwaitPending <= 150 ns: met (133 ns; peer-go 519 ns). The inline path
//     is one 144-byte allocation (the Deferred, about a third of the time)
//     and five atomic read-modify-writes: the attach CAS, the LIFO-slot
//     swap, the claim, the finish CAS and the parent's release.
//   - CancelFanout <= 100 ns per child: not met, and below what Go allows:
//     0.80, 1.60 and 1.56 us per child at 1k, 10k and 100k: linear from
//     10k on; from 1k to 10k the cost per child doubles, as peer-context's
//     does (372 -> 667 ns), likely because the parked goroutines' stacks
//     no longer fit in the caches. The 100k case takes ~0.16 s and ~4.5 MB
//     per op. A parked task is a goroutine blocked on its own kc.Parker,
//     so a cancelled child costs a wake-up, a run to the end of its body
//     (which stops its Sleep timer and ends its job) and a goroutine exit.
//     Two benchmarks in
//     this package measure the floor of the two ways a Go backend can park
//     a task: BenchmarkGoroutineWakeFloor, 1000 goroutines each blocked on
//     a WaitGroup of its own, woken one by one, costs 420-460 ns per child
//     (260-320 of it the waker's loop) before any runtime work; and
//     BenchmarkCoroutineResumeFloor, resuming parked iter.Pull coroutines
//     with no queue and no contention, costs 160-230 ns per child at 1k
//     and 220-350 at 10k, because each parked stack is cold by then.
//     peer-context, where one channel close wakes every goroutine, costs
//     372 ns in this run. Coroutine parking would also need to know which
//     coroutine the parking goroutine is, and Go has no goroutine
//     identity: a Park reached through the wrong job (a body that awaits
//     with its parent's *Job, say) would yield the wrong coroutine. What
//     the backend costs above the goroutine floor is the core's walk (a
//     lock section and a few atomics per child), the timer stop and the
//     child's end (its unlink from the parent's list and the release).
//   - Job stays 128 bytes (kc's TestJobSize).
//
// # Costs
//
// Spawn: a pin, one swap, up to two plain stores, four loads, no
// allocation. A worker's pop: one swap or one CAS. Stealing n
// tasks: n loads, n plain stores and one CAS. A worker runs its tasks with
// Task.RunOn on a kc.Worker of its own, so children of one parent that end
// in a row on it release the parent once (it flushes before it spins,
// sleeps or exits). Park by a worker: one atomic add and a scan of the
// rings' heads (O(GOMAXPROCS)), plus a goroutine hand-off if work is
// queued; its return: one add on the P's debt shard. A worker ending a task
// checks the debt shards (one load per P). An idle executor: no CPU (the
// monitor and idle workers are blocked).
package stealing
