package model

import (
	"errors"
	"fmt"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// ErrInvalid is matched by Model's error for a program that breaks the
// generator's rules (see the package doc): its outcome would depend on
// timing, or it would never end. The shrinker drops such candidates.
var ErrInvalid = errors.New("model: program breaks the determinism rules")

// violation is panicked by the interpreter and recovered by Model.
type violation struct{ msg string }

func (m *machine) invalid(format string, args ...any) {
	panic(violation{fmt.Sprintf(format, args...)})
}

// Expect is what the model predicts for a program.
type Expect struct {
	Run   EV             // Run's error
	Ops   map[int]Obs    // by Op.N: what each op that ran observed
	Jobs  map[int]JobObs // by Job.ID: each job that exists, at the end
	Hooks map[int]int    // by hook number: how many times its callback ran
	Stats kc.Stats       // WaitersRegistered and WaitersWoken are not predicted
}

// Obs is what one op observed: errors and integers (booleans, states and
// values), in an order fixed by the op's kind.
type Obs struct {
	Errs []EV
	Ints []int
}

// Ran says whether a job's body ran.
const (
	RanNo     = 0
	RanYes    = 1
	RanEither = 2 // a body cancelled before any sync: it may or may not start
)

// JobObs is a job's end state. Errors[Unordered:] may come in any order
// (failures recorded by jobs that end concurrently).
type JobObs struct {
	State     kc.State
	Result    EV
	Errors    []EV
	Unordered int
	Ran       int
	NoHandle  bool // the runner never gets the job (a WithTimeout(0) scope)
}

// How a cancellation was requested (as in kc).
const (
	byPropagation = iota
	byCancel
	byTimeout
)

// mjob is the model's view of one job.
type mjob struct {
	id       int
	spec     *Job
	parent   *mjob // the kc parent; nil for the root
	owner    *mjob // the job whose body made it
	attached bool
	sup      bool
	scope    bool
	nursery  bool
	kids     []*mjob // attached children, in creation order
	owned    []*mjob // jobs this job's body made (its own and its nurseries' children)

	state     kc.State
	cancel    bool
	cause     EV
	timedOut  bool
	shield    int
	walked    bool
	bodyDone  bool
	closed    bool
	holds     int // unfinished attached children, leases, a walk in progress
	errs      []EV
	groupOpen bool
	group     int // errs[group:] are unordered once groupOpen
	result    EV
	ran       int

	running     bool    // its body is on the model's stack
	parked      bool    // waiting for cancellation (EndPark)
	reachedEnd  bool    // ran all its ops
	after       End     // the parked body's End
	asyncEnd    bool    // launched without Join: its end is unordered with its owner
	asyncRel    bool    // something it waits for (its body, a child) ended unordered: so does it
	unsynced    bool    // may still be running its ops: its owner has not synchronised
	inflight    bool    // its end is unordered with its owner until joined
	cancelAsync bool    // its cancellation came from an unordered end (a failure on its way), not from a step of a running body
	insensitive bool    // no ops, parks, returns the wait's error: start or not, same outcome
	pending     []*mjob // children whose failure reaches its running body unordered: its next op waits for them
	waitingOn   *mjob   // the job its current op waits for (a failure from it arrives in order)
	noHandle    bool    // the runner never sees the job (WithTimeout(0) skips the body)
	readied     bool    // its owner waited for its Ready signal
	genStop     bool    // the generator ends the body now (ExclFailureAfterJoin)
	extCancel   bool    // cancelled from outside its body: by then, whatever it ran is known
	hooks       []*mhook
}

// hookState is an OnCancel callback's state, as kc's cancelNode has it.
type hookState uint8

const (
	// hookArmed: registered; the job's cancel walk fires it, stop stops
	// it, the job's end drops it. Next: hookFired or hookStopped.
	hookArmed hookState = iota
	// hookFired: the callback ran (once). Terminal.
	hookFired
	// hookStopped: stop prevented the call. Terminal.
	hookStopped
)

// mhook is an OnCancel callback of the program.
type mhook struct {
	job    *mjob // the job it is registered on
	owner  *mjob // the job whose body registered it
	panics bool  // the callback panics with k after counting
	k      int
	state  hookState
	fired  int
}

// mlease is a Lease of the program.
type mlease struct {
	job   *mjob // the job it holds
	owner *mjob // the job whose body took it
	done  bool  // released
}

// machine interprets (and, with gen set, generates) a program.
type machine struct {
	p      *Program
	jobs   map[int]*mjob
	hooks  map[int]*mhook
	leases map[int]*mlease
	exp    *Expect
	stats  kc.Stats
	async  int // > 0 while processing what happens unordered with the running bodies
	gen    *generator
	fin    []*mjob // the jobs whose finish is being processed, innermost last
	nextOp int
	nextID int
}
