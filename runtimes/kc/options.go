package kc

// Option configures a Runtime.
type Option func(*config)

type config struct {
	name   string
	tracer Tracer
	faults faultSet // see faults_on.go; empty in an ordinary build
}

// WithName sets the name Runtime.Name reports. By default it is the
// executor's Name method, if it has one, else "custom".
func WithName(name string) Option { return func(c *config) { c.name = name } }

// WithTracer installs a tracer that receives every trace event (see Event).
// Without one, tracing costs a nil check per event site.
func WithTracer(t Tracer) Option { return func(c *config) { c.tracer = t } }

// JobOption configures one job at Launch, Async or Open. The zero JobOption
// changes nothing.
type JobOption struct {
	flags jobFlags
	name  string
}

// Detached makes the new job a detached child: it is not in its parent's
// child list, so the parent neither waits for it nor cancels it, and its
// failure goes nowhere. Runtime.Close still cancels and drains it.
func Detached() JobOption { return JobOption{flags: flagDetached} }

// Supervisor makes the new job a supervisor: failures of its children do not
// cancel it or their siblings, and it ends Completed unless its own body fails.
func Supervisor() JobOption { return JobOption{flags: flagSupervisor} }

// Named gives the new job a name, reported by Job.Name and Job.String.
func Named(name string) JobOption { return JobOption{name: name} }
