package stealing

import "fmt"

// State is a snapshot of the executor's counters, for tests.
type State struct {
	Running, Spinning, Extra, Idle, Debt int32
	MonitorAsleep                        bool
}

// Snapshot reads the counters one by one (not atomically as a whole).
func Snapshot(e *Executor) State {
	s := State{
		Running:       e.sched.running.Load(),
		Spinning:      e.sched.spinning.Load(),
		Extra:         e.sched.extra.Load(),
		Idle:          e.sched.idle.Load(),
		MonitorAsleep: e.mon.asleep.Load(),
	}
	for i := range e.debt {
		s.Debt += e.debt[i].n.Load()
	}
	return s
}

// DumpRings describes every ring (head, tail, the LIFO slot and whether
// its task is finished) and the injector, for a failing test's message.
func DumpRings(e *Executor) string {
	s := ""
	for i := range e.rings {
		r := &e.rings[i]
		t := r.next.Load()
		s += fmt.Sprintf("ring %d: head %d tail %d next %p", i, r.head.Load(), r.tail.Load(), t)
		if t != nil {
			s += fmt.Sprintf(" (finished %v)", t.Finished())
		}
		s += "\n"
	}
	return s + fmt.Sprintf("injector: %d\n", e.inj.n.Load())
}

// CoroCounts reports the loop coroutines: how many are live (registered in
// the g table), the table's capacity, and how many sit in the idle pool.
func CoroCounts(e *Executor) (live, capacity, pooled int) {
	live, capacity = e.gt.size()
	return live, capacity, int(e.pool.size.Load())
}

// GMinCap is the g table's smallest capacity.
const GMinCap = gMinCap

// WithoutMonitor is New's option for a test that must show a task run with
// no help from the monitor (see withoutMonitor).
func WithoutMonitor() Option { return withoutMonitor() }
