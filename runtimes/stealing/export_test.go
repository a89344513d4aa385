package stealing

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
