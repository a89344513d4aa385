package perf

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcbench/kcbench/runtimes"
)

// Workload is one benchmark, runnable on every registered backend and on
// the peers that have a fair equivalent of it. Workloads returns copies; the
// zero Workload runs nothing (its methods return errors).
type Workload struct {
	// Name is the contract name (DESIGN.md "Benchmarks and reports"):
	// results appear as Benchmark<Name>/backend=<b>[/n=<k>].
	Name string
	// Sizes are the default sizes of a sized workload, nil if it is
	// unsized. Any n >= 1 is accepted; Sizes are what the benchmarks run.
	Sizes []int
	// Op says in one line what one operation (one b.N iteration) is.
	Op string

	kc    kcRun              // the implementation on a kc runtime, any backend
	peers map[string]peerRun // by peer name; only the peers that apply
	floor peerRun            // the workload's floor (floor.go), run as backend=Floor
}

// timer is the part of *testing.B that an implementation uses; *testing.B
// implements it, and nopTimer stands in when an op is run outside testing.
type timer interface {
	ResetTimer()
	StartTimer()
	StopTimer()
	Elapsed() time.Duration
	ReportMetric(n float64, unit string)
}

// kcRun runs ops operations of a workload of size n on a fresh runtime of
// the named backend; peerRun does the same with plain Go. Both create and
// release what they need outside the timer.
type (
	kcRun   func(t timer, backend string, n, ops int) error
	peerRun func(t timer, n, ops int) error
)

// nopTimer is the timer of Run: it measures nothing.
type nopTimer struct{}

func (nopTimer) ResetTimer()                  {}
func (nopTimer) StartTimer()                  {}
func (nopTimer) StopTimer()                   {}
func (nopTimer) Elapsed() time.Duration       { return 0 }
func (nopTimer) ReportMetric(float64, string) {}

// Peer names, in the order Peers returns them.
const (
	PeerGo       = "peer-go"       // a go statement and a sync.WaitGroup or channel
	PeerErrgroup = "peer-errgroup" // golang.org/x/sync/errgroup
	PeerConc     = "peer-conc"     // github.com/sourcegraph/conc
	PeerContext  = "peer-context"  // context.WithCancel trees and goroutines
)

var peerNames = []string{PeerGo, PeerErrgroup, PeerConc, PeerContext}

// Peers returns the names of the peers, the plain-Go equivalents that run
// beside the backends as backend=peer-<name>.
func Peers() []string { return slices.Clone(peerNames) }

// NestedDepth is the depth of the chain of scopes one NestedScopes op makes.
const NestedDepth = 100

// workloads is the table, in the contract's order.
var workloads = []Workload{
	{Name: "JobCreate", Op: "launch one empty child into an open scope; all are awaited before the timer stops",
		kc: kcJobCreate, floor: floorJobCreate, peers: map[string]peerRun{
			PeerGo: goJobCreate, PeerErrgroup: egJobCreate, PeerConc: concJobCreate, PeerContext: ctxJobCreate}},
	{Name: "AwaitCached", Op: "await a deferred that has already completed",
		kc: kcAwaitCached, floor: floorAwaitCached, peers: map[string]peerRun{PeerGo: goAwaitCached, PeerErrgroup: egAwaitCached}},
	{Name: "AwaitPending", Op: "start an empty async job and await its value",
		kc: kcAwaitPending, floor: floorAwaitPending, peers: map[string]peerRun{
			PeerGo: seqPeer(goAsyncAwait), PeerErrgroup: seqPeer(egAsyncAwait), PeerConc: seqPeer(concAsyncAwait)}},
	{Name: "CancelFanout", Sizes: []int{1000, 10000, 100000},
		Op: "cancel a scope whose n children are parked in a 1h sleep, wait until all are terminal (setup untimed)",
		kc: kcCancelFanout, floor: floorCancelFanout, peers: map[string]peerRun{PeerErrgroup: egCancelFanout, PeerContext: ctxCancelFanout}},
	{Name: "WaitersStorm", Sizes: []int{32},
		Op: "n jobs await one pending deferred; complete it; wait until every await returned",
		kc: kcWaitersStorm, floor: floorWaitersStorm, peers: map[string]peerRun{PeerGo: goWaitersStorm}},
	{Name: "NestedScopes", Op: "a chain of 100 nested scopes, each with nothing to wait for",
		kc: kcNestedScopes, floor: floorNestedScopes, peers: map[string]peerRun{PeerErrgroup: egNestedScopes, PeerContext: ctxNestedScopes}},
	{Name: "FanOut", Sizes: []int{10, 100, 1000},
		Op: "a scope launches n children that each run a fixed ~200 ns CPU task, and waits for them",
		kc: kcFanOut, floor: floorFanOut, peers: map[string]peerRun{PeerGo: goFanOut, PeerErrgroup: egFanOut, PeerConc: concFanOut}},
	{Name: "ChanPingPong", Op: "a round trip of a value between two jobs over two rendezvous channels",
		kc: kcChanPingPong, floor: floorChanPingPong, peers: map[string]peerRun{PeerGo: goChanPingPong}},
	{Name: "ChanBuffered", Op: "one value from a sending job to a receiving job through a channel of capacity 64",
		kc: kcChanBuffered, floor: floorChanBuffered, peers: map[string]peerRun{PeerGo: goChanBuffered}},
	{Name: "Select", Op: "one Select receiving from whichever of two fed buffered channels is ready",
		kc: kcSelect, floor: floorSelect, peers: map[string]peerRun{PeerGo: goSelect}},
	{Name: "SleepWake", Op: "sleep 1µs: arm a timer, park, fire, wake",
		kc: kcSleepWake, floor: floorSleepWake, peers: map[string]peerRun{PeerGo: goSleepWake}},
}

// Workloads returns every workload, in the contract's order.
func Workloads() []Workload {
	out := make([]Workload, len(workloads))
	for i, w := range workloads {
		w.Sizes = slices.Clone(w.Sizes)
		out[i] = w
	}
	return out
}

// Names returns the workload names, in the contract's order.
func Names() []string {
	names := make([]string, len(workloads))
	for i, w := range workloads {
		names[i] = w.Name
	}
	return names
}

// Lookup returns the workload called name, or an error matching
// ErrUnknownWorkload (a *NameError).
func Lookup(name string) (Workload, error) {
	for _, w := range Workloads() {
		if w.Name == name {
			return w, nil
		}
	}
	return Workload{}, &NameError{Kind: KindWorkload, Name: name, Known: Names()}
}

// Backends returns what w runs on: every registered backend
// (runtimes.Names, at the time of the call), then the peers that have a
// fair equivalent of w, in the order of Peers, then Floor.
func (w Workload) Backends() []string {
	var out []string
	if w.kc != nil {
		out = runtimes.Names()
	}
	for _, p := range peerNames {
		if _, ok := w.peers[p]; ok {
			out = append(out, p)
		}
	}
	if w.floor != nil {
		out = append(out, Floor)
	}
	return out
}

// Bench returns the benchmark of w on backend with size n (0 for an
// unsized workload), for testing.B.Run or testing.Benchmark. It calls
// b.ReportAllocs and fails the benchmark if the workload reports an error
// (under testing.Benchmark a failed benchmark gives a zero result, N == 0;
// Run reports the error itself). Unknown names and bad sizes are reported
// here, never by a panic.
func (w Workload) Bench(backend string, n int) (func(b *testing.B), error) {
	return w.BenchFunc(backend, n, nil)
}

// BenchFunc is Bench, and when the workload reports an error it also hands
// that error to onError (if not nil) before failing the benchmark: under
// testing.Benchmark the failure message is discarded, so a program that
// runs benchmarks that way learns here why one failed.
func (w Workload) BenchFunc(backend string, n int, onError func(error)) (func(b *testing.B), error) {
	run, err := w.bind(backend, n)
	if err != nil {
		return nil, err
	}
	return func(b *testing.B) {
		b.ReportAllocs()
		if err := run(b, b.N); err != nil {
			if onError != nil {
				onError(fmt.Errorf("%s/backend=%s, b.N=%d: %w", w.Name, backend, b.N, err))
			}
			b.Fatalf("%s/backend=%s: %v", w.Name, backend, err)
		}
	}, nil
}

// Run runs ops operations of w on backend with size n, untimed, through the
// same code as Bench: a smoke test of one workload x backend.
func (w Workload) Run(backend string, n, ops int) error {
	run, err := w.bind(backend, n)
	if err != nil {
		return err
	}
	if ops < 1 {
		return &ArgError{Workload: w.Name, Arg: "ops", Value: ops, Why: "must be at least 1"}
	}
	return run(nopTimer{}, ops)
}

// MaxSize is the largest n a sized workload accepts: a million parked
// children already take gigabytes of stacks; more would exhaust memory
// rather than measure anything.
const MaxSize = 1_000_000

// bind checks backend and n and returns the implementation to call.
func (w Workload) bind(backend string, n int) (func(t timer, ops int) error, error) {
	if w.kc == nil && w.peers == nil {
		return nil, &NameError{Kind: KindWorkload, Name: w.Name, Known: Names()}
	}
	switch {
	case w.Sizes == nil && n != 0:
		return nil, &ArgError{Workload: w.Name, Arg: "n", Value: n, Why: "the workload is unsized: n must be 0"}
	case w.Sizes != nil && n < 1:
		return nil, &ArgError{Workload: w.Name, Arg: "n", Value: n, Why: "must be at least 1"}
	case n > MaxSize:
		return nil, &ArgError{Workload: w.Name, Arg: "n", Value: n, Why: fmt.Sprintf("must be at most %d", MaxSize)}
	}
	p, ok := w.peers[backend]
	if backend == Floor && w.floor != nil {
		p, ok = w.floor, true
	}
	if ok {
		return func(t timer, ops int) error { return p(t, n, ops) }, nil
	}
	if runtimes.Validate(backend) != nil {
		return nil, &NameError{Kind: KindBackend, Name: backend, Workload: w.Name, Known: w.Backends()}
	}
	return func(t timer, ops int) error { return w.kc(t, backend, n, ops) }, nil
}

// Sentinel errors; every error this package returns for a bad name or
// argument matches one of them with errors.Is.
var (
	// ErrUnknownWorkload: no workload (or no latency sampler, or no slowed
	// variant) has that name.
	ErrUnknownWorkload = errors.New("perf: unknown workload")
	// ErrUnknownBackend: the name is neither a registered backend nor a peer
	// of the workload. Errors matching it also match
	// runtimes.ErrUnknownBackend.
	ErrUnknownBackend = errors.New("perf: unknown backend")
	// ErrBadArgument: a size, count or slowdown out of range.
	ErrBadArgument = errors.New("perf: bad argument")
)

// What a NameError is about.
const (
	KindWorkload = "workload"
	KindBackend  = "backend"
)

// NameError reports a workload or backend name that is not known (for a
// backend: not registered, and not a peer that applies to the workload).
type NameError struct {
	Kind     string   // KindWorkload or KindBackend
	Name     string   // the name asked for
	Workload string   // for KindBackend: the workload it was asked for
	Known    []string // the names that would have been accepted
	What     string   // what the name was looked up for, if not plain use ("latency", "slowed")
}

func (e *NameError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "perf: unknown %s %q", e.Kind, e.Name)
	if e.What != "" {
		fmt.Fprintf(&b, " for %s", e.What)
	}
	if e.Workload != "" {
		fmt.Fprintf(&b, " in workload %s", e.Workload)
	}
	fmt.Fprintf(&b, " (known: %s)", strings.Join(e.Known, ", "))
	return b.String()
}

// Is makes errors.Is match ErrUnknownWorkload or ErrUnknownBackend (and
// runtimes.ErrUnknownBackend) according to Kind.
func (e *NameError) Is(target error) bool {
	if e.Kind == KindWorkload {
		return target == ErrUnknownWorkload
	}
	return target == ErrUnknownBackend || target == runtimes.ErrUnknownBackend
}

// ArgError reports an argument out of range.
type ArgError struct {
	Workload string // the workload, if any
	Arg      string // "n", "ops", "samples", "slowdown"
	Value    any
	Why      string
}

func (e *ArgError) Error() string {
	w := ""
	if e.Workload != "" {
		w = e.Workload + ": "
	}
	return fmt.Sprintf("perf: %s%s = %v: %s", w, e.Arg, e.Value, e.Why)
}

// Is makes errors.Is(err, ErrBadArgument) hold.
func (e *ArgError) Is(target error) bool { return target == ErrBadArgument }
