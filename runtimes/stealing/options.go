package stealing

import (
	"errors"
	"fmt"
)

// Option configures New. The zero set of options gives GOMAXPROCS workers
// and at most 64 + 4 x workers temporary ones.
type Option func(*config) error

// config is New's resolved configuration; immutable once New returns.
type config struct {
	workers     int  // workers running tasks at once, 1 to MaxWorkers
	maxExtra    int  // temporary workers the monitor may add, 0 to MaxWorkers
	maxExtraSet bool // MaxExtra was given; else maxExtra follows workers
}

// MaxWorkers bounds Workers and MaxExtra: far below Go's default limit of
// 10 000 OS threads for the blocked ones, and the range of the monitor's
// 32-bit counts.
const MaxWorkers = 1 << 16

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

// MaxExtra sets how many temporary workers the monitor may add when tasks
// block where the runtime cannot see it, 0 to MaxWorkers (default 64 + 4 x
// workers).
func MaxExtra(n int) Option {
	return func(c *config) error {
		if n < 0 || n > MaxWorkers {
			return &OptionError{"MaxExtra", n, fmt.Sprintf("want 0 to %d", MaxWorkers)}
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
		c.maxExtra = 64 + 4*c.workers
	}
	return c, nil
}
