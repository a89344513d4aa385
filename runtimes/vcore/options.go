package vcore

import (
	"errors"
	"fmt"
	"runtime"
	"time"
)

// Option configures New. The zero set of options gives GOMAXPROCS cores,
// no pinning, a 20 µs spin, and at most 64 temporary workers on locked
// threads (then helpers, see TempWorkers).
type Option func(*config) error

// config is New's resolved configuration; immutable once New returns.
type config struct {
	workers    int           // number of virtual cores
	pin        bool          // pin each core's owner thread to a CPU
	spin       time.Duration // how long an idle owner polls before sleeping
	maxTemp    int           // bound on goroutines sysmon has taken a core from
	staleAfter time.Duration // a core whose beat has not moved for this long is stuck
	scaleEvery time.Duration // spec 05 SCALE_INTERVAL: at most one retake per this
	inboxSize  int           // per-core ring slots (power of two)
	globalSize int           // global ring slots (power of two)
}

// Limits on option values. They bound memory (slots per worker) and keep
// thread counts far below Go's default limit of 10 000 OS threads.
const (
	MaxWorkers = 1024
	MaxTemp    = 4096
	MaxSpin    = 10 * time.Millisecond
)

// ErrOption is matched (errors.Is) by every error New returns for a bad option.
var ErrOption = errors.New("vcore: invalid option")

// OptionError is New's error for a bad option value.
type OptionError struct {
	Option string // "Workers", "Spin", "TempWorkers", or "Option" for a nil Option
	Value  any
	Reason string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("vcore: %s(%v): %s", e.Option, e.Value, e.Reason)
}

// Is makes errors.Is(err, ErrOption) hold.
func (e *OptionError) Is(target error) bool { return target == ErrOption }

// Workers sets the number of virtual cores, 1 to MaxWorkers. Default:
// runtime.GOMAXPROCS(0) at the time New is called.
func Workers(n int) Option {
	return func(c *config) error {
		if n < 1 || n > MaxWorkers {
			return &OptionError{"Workers", n, fmt.Sprintf("want 1 to %d", MaxWorkers)}
		}
		c.workers = n
		return nil
	}
}

// Pinning turns CPU pinning on or off (default off). With it on, each
// core's owner thread is pinned to one CPU of the process's affinity mask
// (core i to the i-th allowed CPU, wrapping), and a thread is unpinned
// before it is handed back to the Go runtime. New fails with a
// *PinError if the affinity syscalls are refused, or, on an OS other than
// Linux, with one matching ErrPinningUnsupported.
func Pinning(on bool) Option {
	return func(c *config) error { c.pin = on; return nil }
}

// Spin sets how long an idle core owner keeps polling the queues before it
// sleeps, 0 to MaxSpin (default 20 µs). Where owners are goroutines (no
// goroutine identities, or pinning), at most half the unpinned cores'
// owners spin at a time, the others sleep at once (findWork says why);
// owners that are contexts (ctx.go) and pinned owners all may spin.
// Waking a sleeping locked thread costs tens of µs; spinning longer trades
// CPU for fewer wake-ups.
func Spin(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 || d > MaxSpin {
			return &OptionError{"Spin", d, fmt.Sprintf("want 0 to %v", MaxSpin)}
		}
		c.spin = d
		return nil
	}
}

// TempWorkers bounds how many goroutines sysmon may have taken a core away
// from at once (spec 05's K in "base + K"), 0 to MaxTemp (default 64). Each
// holds an OS thread while its body is blocked where the runtime cannot
// see. Past the bound (at once with 0), sysmon rescues stuck cores' work
// with helpers instead: unlocked goroutines without a core, which cost no
// thread when they block (helper.go).
func TempWorkers(k int) Option {
	return func(c *config) error {
		if k < 0 || k > MaxTemp {
			return &OptionError{"TempWorkers", k, fmt.Sprintf("want 0 to %d", MaxTemp)}
		}
		c.maxTemp = k
		return nil
	}
}

func newConfig(opts []Option) (config, error) {
	c := config{
		workers:    runtime.GOMAXPROCS(0),
		spin:       20 * time.Microsecond,
		maxTemp:    64,
		staleAfter: time.Millisecond,
		scaleEvery: time.Millisecond,
		inboxSize:  256,
		globalSize: 4096,
	}
	for _, o := range opts {
		if o == nil {
			return c, &OptionError{"Option", nil, "nil Option"}
		}
		if err := o(&c); err != nil {
			return c, err
		}
	}
	c.workers = min(c.workers, MaxWorkers)
	return c, nil
}
