package model

import (
	"fmt"
	"slices"
	"strings"
)

// A Mismatch is one observable on which a run differs from the model.
type Mismatch struct {
	Where string // "job j3: state", "op 7 (Join)", "stats: JobsCreated", ...
	Got   string
	Want  string
}

func (m Mismatch) String() string { return fmt.Sprintf("%s: got %s; want %s", m.Where, m.Got, m.Want) }

// Compare returns every observable on which got differs from exp. With
// ExclJoinOutcome in forgive, an op that wants a failure e accepts the
// cancellation error "cancelled: e" too.
func Compare(p *Program, exp *Expect, got *Observed, forgive Exclude) []Mismatch {
	if got.Hung {
		return []Mismatch{{Where: "run", Got: "no end (hung)", Want: "an end"}}
	}
	var out []Mismatch
	add := func(where, g, w string) { out = append(out, Mismatch{where, g, w}) }
	if !exp.Run.Match(got.Run) {
		add("Run", got.Run.String(), exp.Run.String())
	}
	if ob, ok := got.Ops[-1]; ok {
		add("Close", evsString(ob.Errs), "nil")
	}
	kinds := opKinds(p)
	for _, n := range sortedKeys(exp.Ops) {
		want := exp.Ops[n]
		where := fmt.Sprintf("op %d (%v)", n, kinds[n])
		g, ok := got.Ops[n]
		if !ok {
			add(where, "not run", want.String())
			continue
		}
		if !want.match(g, forgive&ExclJoinOutcome != 0) {
			add(where, g.String(), want.String())
		}
	}
	for _, n := range sortedKeys(got.Ops) {
		if _, ok := exp.Ops[n]; !ok && n >= 0 {
			add(fmt.Sprintf("op %d (%v)", n, kinds[n]), "ran: "+got.Ops[n].String(), "not run")
		}
	}
	for _, id := range sortedKeys(exp.Jobs) {
		w := exp.Jobs[id]
		g, ok := got.Jobs[id]
		where := fmt.Sprintf("job j%d", id)
		if !ok {
			if !w.NoHandle && w.Ran == RanYes {
				add(where, "no such job", "one")
			}
			continue
		}
		if g.State != w.State {
			add(where+": state", g.State.String(), w.State.String())
		}
		if !w.Result.Match(g.Result) {
			add(where+": Result", g.Result.String(), w.Result.String())
		}
		if !errorsMatch(w.Errors, w.Unordered, g.Errors) {
			add(where+": Errors", evsString(g.Errors), unorderedString(w.Errors, w.Unordered))
		}
		if g.Leftover != 0 {
			add(where+": waiters left on its park's channels", fmt.Sprint(g.Leftover), "0")
		}
		if w.Ran != RanEither && g.Ran != (w.Ran == RanYes) {
			add(where+": body ran", fmt.Sprint(g.Ran), fmt.Sprint(w.Ran == RanYes))
		}
	}
	for _, id := range sortedKeys(got.Jobs) {
		if _, ok := exp.Jobs[id]; !ok {
			add(fmt.Sprintf("job j%d", id), "exists", "no such job")
		}
	}
	for _, k := range sortedKeys(exp.Hooks) {
		if got.Hooks[k] != exp.Hooks[k] {
			add(fmt.Sprintf("hook %d: calls", k), fmt.Sprint(got.Hooks[k]), fmt.Sprint(exp.Hooks[k]))
		}
	}
	gs, ws := got.Stats, exp.Stats
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"JobsCreated", gs.JobsCreated, ws.JobsCreated},
		{"CancellationsRequested", gs.CancellationsRequested, ws.CancellationsRequested},
		{"JobsFailed", gs.JobsFailed, ws.JobsFailed},
		{"JobsCompleted", gs.JobsCompleted, ws.JobsCompleted},
		{"JobsCancelled", gs.JobsCancelled, ws.JobsCancelled},
		{"WaitersWoken", gs.WaitersWoken, gs.WaitersRegistered},
	} {
		if c.got != c.want {
			add("stats: "+c.name, fmt.Sprint(c.got), fmt.Sprint(c.want))
		}
	}
	return out
}

func opKinds(p *Program) map[int]OpKind {
	out := map[int]OpKind{}
	walkOps(p, func(op *Op) { out[op.N] = op.Kind })
	return out
}

// walkOps calls f for every op of p, depth first.
func walkOps(p *Program, f func(*Op)) {
	var block func(b *Block)
	var ops func([]*Op)
	ops = func(list []*Op) {
		for _, op := range list {
			f(op)
			if op.Child != nil && op.Child.Body != nil {
				block(op.Child.Body)
			}
			ops(op.Ops)
		}
	}
	block = func(b *Block) { ops(b.Ops) }
	if p.Root != nil && p.Root.Body != nil {
		block(p.Root.Body)
	}
}

func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func (want Obs) match(got Obs, forgiveJoin bool) bool {
	if len(want.Errs) != len(got.Errs) || !slices.Equal(want.Ints, got.Ints) {
		return false
	}
	for i, w := range want.Errs {
		if w.Match(got.Errs[i]) {
			continue
		}
		if forgiveJoin && got.Errs[i].Kind == ECancel && got.Errs[i].Cause != nil && w.Kind != ECancel && w.Match(*got.Errs[i].Cause) {
			continue
		}
		return false
	}
	return true
}

func (o Obs) String() string {
	s := evsString(o.Errs)
	if len(o.Ints) > 0 {
		s += fmt.Sprint(o.Ints)
	}
	return s
}

func evsString(es []EV) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func unorderedString(es []EV, u int) string {
	if u >= len(es) {
		return evsString(es)
	}
	return strings.TrimSuffix(evsString(es[:u]), "]") + " {any order: " + strings.Trim(evsString(es[u:]), "[]") + "}]"
}

// errorsMatch matches got against want[:u] in order and want[u:] in any
// order.
func errorsMatch(want []EV, u int, got []EV) bool {
	if len(want) != len(got) {
		return false
	}
	for i := 0; i < u && i < len(want); i++ {
		if !want[i].Match(got[i]) {
			return false
		}
	}
	if u >= len(want) {
		return true
	}
	used := make([]bool, len(want))
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(got) {
			return true
		}
		for k := u; k < len(want); k++ {
			if !used[k] && want[k].Match(got[i]) {
				used[k] = true
				if try(i + 1) {
					return true
				}
				used[k] = false
			}
		}
		return false
	}
	return try(u)
}
