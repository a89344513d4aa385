package model

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// DefaultWatchdog is how long one program may run before it counts as hung.
const DefaultWatchdog = 10 * time.Second

// A Failure is a program on which a runtime disagreed with the model.
type Failure struct {
	Seed       uint64
	Program    *Program // the generated program, or its shrunk form
	Mismatches []Mismatch
}

// Error lists the mismatches, one a line: "seed S: where: got X; want Y".
func (f *Failure) Error() string {
	lines := make([]string, len(f.Mismatches))
	for i, m := range f.Mismatches {
		lines[i] = fmt.Sprintf("seed %d: %s", f.Seed, m)
	}
	return strings.Join(lines, "\n")
}

// CheckProgram runs p once on a fresh runtime and compares it with the
// model. The error is only for a program the model rejects (ErrInvalid)
// or a runtime that cannot be built.
func CheckProgram(newRuntime func() (*kc.Runtime, error), p *Program, forgive Exclude, watchdog time.Duration) ([]Mismatch, error) {
	exp, err := Model(p)
	if err != nil {
		return nil, err
	}
	rt, err := newRuntime()
	if err != nil {
		return nil, err
	}
	if watchdog <= 0 {
		watchdog = DefaultWatchdog
	}
	return Compare(p, exp, Execute(rt, p, watchdog), forgive), nil
}

// CheckSeed generates the program of seed and checks it once. It returns
// nil if the runtime agrees with the model.
func CheckSeed(newRuntime func() (*kc.Runtime, error), seed uint64, cfg Config, watchdog time.Duration) (*Failure, error) {
	p, err := Generate(seed, cfg)
	if err != nil {
		return nil, err
	}
	ms, err := CheckProgram(newRuntime, p, cfg.Exclude, watchdog)
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", seed, err)
	}
	if len(ms) == 0 {
		return nil, nil
	}
	return &Failure{Seed: seed, Program: p, Mismatches: ms}, nil
}

// Fuzz checks the programs of seeds first, first+1, ... first+n-1 and
// stops at the first failure, which it returns with the number of programs
// run (that one included). An error is a generator bug or a runtime that
// cannot be built.
func Fuzz(newRuntime func() (*kc.Runtime, error), first uint64, n int, cfg Config, watchdog time.Duration) (int, *Failure, error) {
	for i := range n {
		f, err := CheckSeed(newRuntime, first+uint64(i), cfg, watchdog)
		if err != nil || f != nil {
			return i + 1, f, err
		}
	}
	return n, nil, nil
}

// Shrink looks for a smaller program that still fails the same way (delta
// debugging over the op tree: it removes ops and subtrees, empties bodies
// and simplifies ends while a mismatch on one of the same observables
// persists, trying each candidate up to tries times, since some failures
// depend on timing). Candidates the model rejects are skipped. It returns
// f itself if nothing smaller fails.
func Shrink(newRuntime func() (*kc.Runtime, error), f *Failure, forgive Exclude, watchdog time.Duration, tries int) *Failure {
	best := f
	budget := 3000
	for improved := true; improved && budget > 0; {
		improved = false
		for i := 0; budget > 0; i++ {
			cand, ok := edit(best.Program, i)
			if !ok {
				break
			}
			if _, err := Model(cand); err != nil {
				continue
			}
			for range max(tries, 1) {
				budget--
				ms, err := CheckProgram(newRuntime, cand, forgive, watchdog)
				if err == nil && sameFailure(f.Mismatches, ms) {
					best = &Failure{Seed: f.Seed, Program: cand, Mismatches: ms}
					improved = true
					break
				}
			}
			if improved {
				break
			}
		}
	}
	return best
}

// edit returns a copy of p with its i-th simplification applied, or false
// if p has fewer.
func edit(p *Program, i int) (*Program, bool) {
	q := cloneProgram(p)
	var edits []func()
	if q.CtxCancelled {
		edits = append(edits, func() { q.CtxCancelled = false })
	}
	var block func(b *Block)
	var ops func(list *[]*Op)
	ops = func(list *[]*Op) {
		for k := range *list {
			edits = append(edits, func() { *list = append((*list)[:k:k], (*list)[k+1:]...) })
		}
		for _, op := range *list {
			if op.Child != nil && op.Child.Body != nil {
				block(op.Child.Body)
			}
			if op.Kind == OpShield {
				ops(&op.Ops)
			}
			if op.Wait != 0 {
				edits = append(edits, func() { op.Wait = 0 })
			}
		}
	}
	block = func(b *Block) {
		if len(b.Ops) > 1 {
			edits = append(edits, func() { b.Ops = nil })
		}
		if b.End.Kind != EndReturn {
			edits = append(edits, func() { b.End = End{} })
		}
		ops(&b.Ops)
	}
	block(q.Root.Body)
	// Remove an op together with every op that refers to what it made (a
	// lease and its release, a hook and its stop, a job and its joins):
	// neither can go alone.
	var all []*Op
	walkOps(q, func(op *Op) { all = append(all, op) })
	for _, op := range all {
		var refs []*Op
		for _, o := range all {
			if o != op && refersTo(o, op) {
				refs = append(refs, o)
			}
		}
		if len(refs) == 0 {
			continue
		}
		del := append(refs, op)
		edits = append(edits, func() { removeOps(q, del) })
	}
	if i >= len(edits) {
		return nil, false
	}
	edits[i]()
	return q, true
}

// refersTo reports whether o uses what op made: its job, lease or hook.
func refersTo(o, op *Op) bool {
	switch op.Kind {
	case OpLease:
		return o.Kind == OpRelease && o.K == op.K
	case OpOnCancel:
		return o.Kind == OpStop && o.K == op.K
	}
	if op.Child == nil || o.Target < 0 {
		return false
	}
	return o.Target == op.Child.ID || o.Target == op.Child.ID+1 && (op.Kind == OpProduce || op.Kind == OpProduceCancel)
}

// removeOps deletes the given ops wherever they are in q.
func removeOps(q *Program, del []*Op) {
	var fix func(list []*Op) []*Op
	fix = func(list []*Op) []*Op {
		out := list[:0:0]
		for _, op := range list {
			if slices.Contains(del, op) {
				continue
			}
			if op.Child != nil && op.Child.Body != nil {
				op.Child.Body.Ops = fix(op.Child.Body.Ops)
			}
			op.Ops = fix(op.Ops)
			out = append(out, op)
		}
		return out
	}
	q.Root.Body.Ops = fix(q.Root.Body.Ops)
}

func cloneProgram(p *Program) *Program {
	q := *p
	q.Root = cloneJob(p.Root)
	return &q
}

func cloneJob(j *Job) *Job {
	if j == nil {
		return nil
	}
	c := *j
	if j.Body != nil {
		b := *j.Body
		b.Ops = cloneOps(j.Body.Ops)
		c.Body = &b
	}
	return &c
}

func cloneOps(ops []*Op) []*Op {
	if ops == nil {
		return nil
	}
	out := make([]*Op, len(ops))
	for i, op := range ops {
		c := *op
		c.Child = cloneJob(op.Child)
		c.Ops = cloneOps(op.Ops)
		out[i] = &c
	}
	return out
}

// sameFailure reports whether got has a mismatch on an observable that
// want has one on (ops and jobs keep their numbers while shrinking), so
// that shrinking does not drift to another failure.
func sameFailure(want, got []Mismatch) bool {
	for _, g := range got {
		for _, w := range want {
			if g.Where == w.Where {
				return true
			}
		}
	}
	return false
}
