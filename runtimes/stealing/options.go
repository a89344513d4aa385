package stealing

import (
	"errors"
	"fmt"
)

// Option configures New. The zero set of options gives GOMAXPROCS workers
// and no cap on temporary ones (see MaxExtra).
type Option func(*config) error

// config is New's resolved configuration; immutable once New returns.
type config struct {
	workers     int  // workers running tasks at once, 1 to MaxWorkers
	maxExtra    int  // temporary workers the monitor may add, 0 to maxExtraLimit
	maxExtraSet bool // MaxExtra was given; else maxExtra is maxExtraLimit
	// noMonitor: start no monitor goroutine. Set only by tests, which
	// must show that a worker gets work without the monitor's rescue.
	noMonitor bool
}

// MaxWorkers bounds Workers.
const MaxWorkers = 1 << 16

// maxExtraLimit is MaxExtra's largest value and its default.
const maxExtraLimit = 1 << 20

// ErrOption is matched (errors.Is) by every error New returns for a bad
// option.
var ErrOption = errors.New("stealing: invalid option")

// OptionError is New's error for a bad option value.
type OptionError struct {
	Option string // "Workers", "MaxExtra", or "Option" for a nil Option
	Value  any
	Reason string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("stealing: %s(%v): %s", e.Option, e.Value, e.Reason)
}

// Is makes errors.Is(err, ErrOption) hold.
func (e *OptionError) Is(target error) bool { return target == ErrOption }

// Workers sets how many workers run tasks at once, 1 to MaxWorkers
// (default GOMAXPROCS at the time New is called).
func Workers(n int) Option {
	return func(c *config) error {
		if n < 1 || n > MaxWorkers {
			return &OptionError{"Workers", n, fmt.Sprintf("want 1 to %d", MaxWorkers)}
		}
		c.workers = n
		return nil
	}
}

// MaxExtra caps how many temporary workers the monitor may add when tasks
// block where the runtime cannot see it, 0 to 1<<20 (the default, in effect
// no cap: the monitor never adds more workers than there are queued tasks,
// so N tasks blocked at once on Go channels get N goroutines, as with go
// statements). A temporary worker costs a goroutine; it retires when the
// monitor takes its slot back (see monitor). With a cap, a chain of more
// blocked tasks than workers + cap, each waiting for a later one, never
// finishes.
func MaxExtra(n int) Option {
	return func(c *config) error {
		if n < 0 || n > maxExtraLimit {
			return &OptionError{"MaxExtra", n, fmt.Sprintf("want 0 to %d", maxExtraLimit)}
		}
		c.maxExtra, c.maxExtraSet = n, true
		return nil
	}
}

// newConfig applies opts over the defaults for procs Ps.
func newConfig(procs int, opts []Option) (config, error) {
	c := config{workers: procs}
	for _, o := range opts {
		if o == nil {
			return c, &OptionError{"Option", nil, "nil Option"}
		}
		if err := o(&c); err != nil {
			return c, err
		}
	}
	if !c.maxExtraSet {
		c.maxExtra = maxExtraLimit
	}
	return c, nil
}
