package model

import (
	"fmt"
	"strings"
)

// A Program is one generated test program: a root body run by
// Runtime.Run, then Runtime.Close. It is plain data: the model interprets
// it (Model), the runner executes it on a real runtime (Execute), and the
// shrinker edits it (Shrink). String prints it as Go-like text.
type Program struct {
	Seed         uint64 // the seed it was generated from (informational)
	CtxCancelled bool   // Run is given a context that is already cancelled
	Root         *Job   // the root job (Kind JobRoot)
}

// JobKind says how a job is made.
type JobKind uint8

const (
	JobRoot       JobKind = iota // Runtime.Run
	JobLaunch                    // Job.Launch
	JobAsync                     // kc.Async; its value is the job's ID
	JobSupervisor                // Job.Launch with kc.Supervisor()
	JobDetached                  // Job.Launch with kc.Detached()
	JobScope                     // Job.Scope
	JobSupScope                  // Job.SupervisorScope
	JobTimeout                   // Job.WithTimeout (see Timeout)
	JobNursery                   // Job.Open (no body)
	JobSupNursery                // Job.Open(kc.Supervisor())
)

var jobKindNames = [...]string{"Run", "Launch", "Async", "LaunchSupervisor", "LaunchDetached",
	"Scope", "SupervisorScope", "WithTimeout", "Open", "OpenSupervisor"}

func (k JobKind) String() string { return jobKindNames[k] }

// Timeouts of a JobTimeout scope: zero skips the body, long never fires
// while the program runs, short fires while the body waits to be cancelled.
const (
	TimeoutZero  = 0
	TimeoutLong  = 1
	TimeoutShort = 2
)

// A Job is a job of the program: its kind and, unless it is a nursery, its
// body. IDs are unique in a program and stable under shrinking.
type Job struct {
	ID      int
	Kind    JobKind
	Timeout int    // JobTimeout only
	Body    *Block // nil for nurseries
}

// A Block is a body: ops run in order, then End.
type Block struct {
	Ops []*Op
	End End
}

// EndKind is how a body ends.
type EndKind uint8

const (
	EndReturn EndKind = iota // return nil
	EndFail                  // return fail error K
	EndPanic                 // panic(K)
	EndCheck                 // return j.Check()
	EndPark                  // wait until cancelled (Park), then After
)

// Park is the cancellable wait of an EndPark body.
type Park uint8

const (
	ParkSleep  Park = iota // j.Sleep(time.Hour)
	ParkRecv               // Recv on a channel nobody sends to
	ParkSelect             // Select over two such channels
	ParkSend               // Send on a full channel nobody receives from
)

var parkNames = [...]string{"Sleep(1h)", "Recv(never)", "Select(never, never)", "Send(full)"}

// After is what a parked body does once its wait ends with cancellation.
type After uint8

const (
	AfterErr  After = iota // return the wait's error (a cancellation)
	AfterNil               // return nil
	AfterFail              // return fail error K
)

// End ends a Block.
type End struct {
	Kind  EndKind
	K     int // EndFail/EndPanic/AfterFail: which error or panic value
	Park  Park
	After After
}

// OpKind is what an op does; Op's doc says which fields each kind uses.
type OpKind uint8

const (
	OpLaunch        OpKind = iota // Child into Target (-1: self); Wait: 0 none, 1 Join/Await, 2 Ready
	OpJoin                        // Join (Await for Async) Target
	OpReady                       // wait until Target's body has run all its ops (reached its End)
	OpCancel                      // Target.Cancel(cause K, -1: nil); Wait 1: then Join it
	OpCheck                       // j.Check()
	OpScope                       // Child (a scope) runs; records its error
	OpShield                      // j.Shield(Ops)
	OpOpen                        // Child (a nursery) = j.Open()
	OpClose                       // Target.Close()
	OpAwaitAll                    // Target.AwaitAll(j)
	OpTryResult                   // Target.TryResult()
	OpObserve                     // Target.State(), whether Target.Done() is closed, Target.Err(), Target.IsCancelled()
	OpOnCancel                    // hook K on Target (Panic: the callback panics)
	OpStop                        // stop() of hook K
	OpLease                       // lease K on Target
	OpRelease                     // release lease K
	OpProduce                     // SupervisorScope{ Produce(Count values, cap Cap, fail K>=0); receive all } (jobs Child.ID, Child.ID+1)
	OpActor                       // NewActor(cap Cap); send Count messages (fail at K>=0); Close; Join (job Child.ID)
	OpActorCancel                 // NewActor(cap 1); cancel its job; Join; TrySend (job Child.ID)
	OpProduceCancel               // Open; Produce into it; cancel it; Recv; AwaitAll (jobs Child.ID, Child.ID+1)
	OpSelect                      // Select over two fresh channels, case K (-1: none) holding a value
	OpSelectRepeat                // Select(j, c.RecvCase, c.RecvCase) with a value buffered: rejected
	OpPoolDiscard                 // pool of 1: Get; child Gets; Ready; Discard; Join child (job Child.ID)
	OpJoinSelf                    // Target (self or an ancestor).Join(j): an error at once
	OpSleep                       // j.Sleep(K microseconds), then j.Yield()
	OpWaitAll                     // j.WaitAll(-1): wait until j has no children or leases
	OpForeignChain                // Scope{ Count children, each blocked on a Go channel the one before closes; the releasing one launched last }
)

var opNames = [...]string{"Launch", "Join", "Ready", "Cancel", "Check", "Scope", "Shield", "Open",
	"Close", "AwaitAll", "TryResult", "State", "OnCancel", "Stop", "Lease", "Release", "Produce",
	"Actor", "ActorCancel", "ProduceCancel", "Select", "SelectRepeat", "PoolDiscard", "JoinSelf", "Sleep", "WaitAll", "ForeignChain"}

func (k OpKind) String() string { return opNames[k] }

// An Op is one step of a body. N is its number, unique in the program: its
// observations are recorded under it.
type Op struct {
	N      int
	Kind   OpKind
	Target int  // a job ID; -1: the running job itself
	Child  *Job // OpLaunch, OpScope, OpOpen and the composites' jobs
	K      int
	Wait   int
	Panic  bool
	Count  int
	Cap    int
	Ops    []*Op // OpShield
}

// String prints p as Go-like text.
func (p *Program) String() string {
	var b strings.Builder
	ctx := "ctx"
	if p.CtxCancelled {
		ctx = "cancelledCtx"
	}
	fmt.Fprintf(&b, "// seed %d\nrt.Run(%s, func(j%d *Job) error {\n", p.Seed, ctx, p.Root.ID)
	printBlock(&b, p.Root.ID, p.Root.Body, 1)
	b.WriteString("})\nrt.Close()\n")
	return b.String()
}

func ind(b *strings.Builder, depth int) { b.WriteString(strings.Repeat("\t", depth)) }

func tgt(self, t int) string {
	if t < 0 {
		return fmt.Sprintf("j%d", self)
	}
	return fmt.Sprintf("j%d", t)
}

func cause(k int) string {
	if k < 0 {
		return "nil"
	}
	return fmt.Sprintf("cause%d", k)
}

func printBlock(b *strings.Builder, self int, blk *Block, depth int) {
	if blk == nil {
		return
	}
	printOps(b, self, blk.Ops, depth)
	ind(b, depth)
	e := blk.End
	switch e.Kind {
	case EndReturn:
		b.WriteString("return nil\n")
	case EndFail:
		fmt.Fprintf(b, "return fail%d\n", e.K)
	case EndPanic:
		fmt.Fprintf(b, "panic(%d)\n", e.K)
	case EndCheck:
		fmt.Fprintf(b, "return j%d.Check()\n", self)
	case EndPark:
		fmt.Fprintf(b, "err := %s // until cancelled\n", parkNames[e.Park])
		ind(b, depth)
		switch e.After {
		case AfterErr:
			b.WriteString("return err\n")
		case AfterNil:
			b.WriteString("return nil\n")
		case AfterFail:
			fmt.Fprintf(b, "return fail%d\n", e.K)
		}
	}
}

func printOps(b *strings.Builder, self int, ops []*Op, depth int) {
	for _, op := range ops {
		ind(b, depth)
		fmt.Fprintf(b, "/*%d*/ ", op.N)
		t := tgt(self, op.Target)
		switch op.Kind {
		case OpLaunch:
			c := op.Child
			fmt.Fprintf(b, "j%d, err := %s(%s, func(j%d *Job) error {\n", c.ID, c.Kind, t, c.ID)
			printBlock(b, c.ID, c.Body, depth+1)
			ind(b, depth)
			switch op.Wait {
			case 1:
				fmt.Fprintf(b, "}); Join(j%d, j%d)\n", c.ID, self)
			case 2:
				fmt.Fprintf(b, "}); Ready(j%d)\n", c.ID)
			default:
				b.WriteString("})\n")
			}
		case OpScope:
			c := op.Child
			arg := ""
			if c.Kind == JobTimeout {
				arg = [...]string{"0, ", "time.Hour, ", "time.Millisecond, "}[c.Timeout]
			}
			fmt.Fprintf(b, "err := j%d.%s(%sfunc(j%d *Job) error {\n", self, c.Kind, arg, c.ID)
			printBlock(b, c.ID, c.Body, depth+1)
			ind(b, depth)
			b.WriteString("})\n")
		case OpShield:
			fmt.Fprintf(b, "j%d.Shield(func() error {\n", self)
			printOps(b, self, op.Ops, depth+1)
			ind(b, depth+1)
			b.WriteString("return nil\n")
			ind(b, depth)
			b.WriteString("})\n")
		case OpOpen:
			fmt.Fprintf(b, "j%d, err := %s(j%d)\n", op.Child.ID, op.Child.Kind, self)
		case OpJoin:
			fmt.Fprintf(b, "err := %s.Join(j%d)\n", t, self)
		case OpReady:
			fmt.Fprintf(b, "Ready(%s)\n", t)
		case OpCancel:
			fmt.Fprintf(b, "ok := %s.Cancel(%s)", t, cause(op.K))
			if op.Wait == 1 {
				fmt.Fprintf(b, "; err := %s.Join(j%d)", t, self)
			}
			b.WriteString("\n")
		case OpCheck:
			fmt.Fprintf(b, "err := j%d.Check() // and Err, IsCancelled, Done\n", self)
		case OpClose:
			fmt.Fprintf(b, "%s.Close()\n", t)
		case OpAwaitAll:
			fmt.Fprintf(b, "err := %s.AwaitAll(j%d)\n", t, self)
		case OpTryResult:
			fmt.Fprintf(b, "err, done := %s.TryResult()\n", t)
		case OpObserve:
			fmt.Fprintf(b, "st := %s.State() // and Done, Err, IsCancelled\n", t)
		case OpOnCancel:
			what := "fired++"
			if op.Panic {
				what = fmt.Sprintf("fired++; panic(%d)", op.K)
			}
			fmt.Fprintf(b, "stop%d := %s.OnCancel(func() { %s })\n", op.K, t, what)
		case OpStop:
			fmt.Fprintf(b, "ok := stop%d()\n", op.K)
		case OpLease:
			fmt.Fprintf(b, "release%d, err := %s.Lease()\n", op.K, t)
		case OpRelease:
			fmt.Fprintf(b, "release%d()\n", op.K)
		case OpProduce:
			fmt.Fprintf(b, "err := j%d.SupervisorScope(func(j%d) { ch := Produce(j%d, %d, send 0..%d then %s); recv until closed })\n",
				self, op.Child.ID, op.Child.ID, op.Cap, op.Count-1, failOrNil(op.K))
		case OpActor:
			fmt.Fprintf(b, "a := NewActor(j%d, %d, handler fails at %d) /* j%d */; send %d msgs; Close unless failing; err := a.Job().Join(j%d)\n",
				self, op.Cap, op.K, op.Child.ID, op.Count, self)
		case OpActorCancel:
			fmt.Fprintf(b, "a := NewActor(j%d, 1, h) /* j%d */; a.Job().Cancel(nil); a.Job().Join(j%d); err := a.TrySend(1)\n",
				self, op.Child.ID, self)
		case OpProduceCancel:
			fmt.Fprintf(b, "n := j%d.Open() /* j%d */; ch := Produce(n, 0, send 0) /* j%d */; n.Cancel(nil); _, err := ch.Recv(j%d); n.AwaitAll(j%d)\n",
				self, op.Child.ID, op.Child.ID+1, self, self)
		case OpSelect:
			fmt.Fprintf(b, "i, err := Select(j%d, a.RecvCase, b.RecvCase) // ready: %d\n", self, op.K)
		case OpSelectRepeat:
			fmt.Fprintf(b, "c <- 7; i, err := Select(j%d, rc, rc) // same case twice\n", self)
		case OpPoolDiscard:
			fmt.Fprintf(b, "p := NewPool(1); p.Get(j%d); j%d := Launch(p.Get); Ready(j%d); p.Discard(); err := j%d.Join(j%d)\n",
				self, op.Child.ID, op.Child.ID, op.Child.ID, self)
		case OpJoinSelf:
			fmt.Fprintf(b, "err := %s.Join(j%d) // self or ancestor\n", t, self)
		case OpSleep:
			fmt.Fprintf(b, "err := j%d.Sleep(%dus); err2 := j%d.Yield()\n", self, op.K, self)
		case OpWaitAll:
			fmt.Fprintf(b, "err := j%d.WaitAll(-1)\n", self)
		case OpForeignChain:
			fmt.Fprintf(b, "err := j%d.Scope(chain of %d children blocked on Go channels, the releasing one launched last)\n", self, op.Count)
		}
	}
}

func failOrNil(k int) string {
	if k < 0 {
		return "return nil"
	}
	return fmt.Sprintf("return fail%d", k)
}
