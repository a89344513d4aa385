package model

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kcbench/kcbench/runtimes/kc"
)

// The errors programs fail with and cancel with. Errors are compared by
// identity (a failure's Result is the very error the body returned) or, for
// wrappers, by errors.Is and the wrapper's cause.
var (
	failErrs  [8]error
	causeErrs [8]error
)

func init() {
	for i := range failErrs {
		failErrs[i] = fmt.Errorf("fail%d", i)
		causeErrs[i] = fmt.Errorf("cause%d", i)
	}
}

// EKind classifies an error value (see EV).
type EKind uint8

const (
	ENil        EKind = iota // nil
	EFail                    // failErrs[K] itself
	ECause                   // causeErrs[K] itself (a cancel cause)
	EPanic                   // a *kc.PanicError whose Value is K
	ECancel                  // matches kc.ErrCancelled and not ErrTimeout; Cause is its cause (nil: any)
	ETimeout                 // a *kc.TimeoutError
	ETimeoutSen              // kc.ErrTimeout (a cancel cause)
	EClosed                  // matches kc.ErrClosed (a *ChanClosedError too); Cause, if set, its cause
	ECtx                     // context.Canceled (the cause of a cancelled Run context)
	EAny                     // any non-nil error (wanted only)
	EOneOf                   // any of Alts (wanted only: an outcome the program leaves open)
	EOther                   // none of the above; wanted only as the cause of evFinished, matched by Text
)

// EV is an error value as the model predicts it and the runner classifies
// it. A nil Cause in a wanted ECancel or EClosed matches any cause.
type EV struct {
	Kind  EKind
	K     int
	Cause *EV
	Text  string // EOther: the error's text
	Alts  []EV   // EOneOf
}

var (
	evNil = EV{}
	evAny = EV{Kind: EAny}
	// evFinished is Err of a job that ended without being cancelled: an
	// error matching ErrCancelled whose cause is kc.ErrFinished.
	evFinished = EV{Kind: ECancel, Cause: &EV{Kind: EOther, Text: kc.ErrFinished.Error()}}
)

func evCancel(cause EV) EV { c := cause; return EV{Kind: ECancel, Cause: &c} }

func (e EV) String() string {
	switch e.Kind {
	case ENil:
		return "nil"
	case EFail:
		return fmt.Sprintf("fail%d", e.K)
	case ECause:
		return fmt.Sprintf("cause%d", e.K)
	case EPanic:
		return fmt.Sprintf("panic(%d)", e.K)
	case ECancel:
		if e.Cause == nil {
			return "cancelled(*)"
		}
		if e.Cause.Kind == ENil {
			return "cancelled"
		}
		return "cancelled(" + e.Cause.String() + ")"
	case ETimeout:
		return "*TimeoutError"
	case ETimeoutSen:
		return "ErrTimeout"
	case EClosed:
		if e.Cause == nil {
			return "closed(*)"
		}
		return "closed(" + e.Cause.String() + ")"
	case ECtx:
		return "context.Canceled"
	case EAny:
		return "an error"
	case EOneOf:
		parts := make([]string, len(e.Alts))
		for i, a := range e.Alts {
			parts[i] = a.String()
		}
		return "one of {" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("other(%q)", e.Text)
}

// Match reports whether got is what want (the model's value) allows.
func (want EV) Match(got EV) bool {
	switch want.Kind {
	case EAny:
		return got.Kind != ENil
	case EOneOf:
		for _, a := range want.Alts {
			if a.Match(got) {
				return true
			}
		}
		return false
	case ECancel, EClosed:
		if got.Kind != want.Kind {
			return false
		}
		if want.Cause == nil {
			return true
		}
		return got.Cause != nil && want.Cause.Match(*got.Cause)
	case EOther:
		return got.Kind == EOther && got.Text == want.Text
	}
	return want.Kind == got.Kind && want.K == got.K
}

// classify turns an error from the runtime into an EV.
func classify(err error) EV {
	if err == nil {
		return evNil
	}
	for i, e := range failErrs {
		if err == e {
			return EV{Kind: EFail, K: i}
		}
	}
	for i, e := range causeErrs {
		if err == e {
			return EV{Kind: ECause, K: i}
		}
	}
	switch err {
	case kc.ErrTimeout:
		return EV{Kind: ETimeoutSen}
	case context.Canceled:
		return EV{Kind: ECtx}
	case kc.ErrClosed:
		return EV{Kind: EClosed, Cause: &EV{}}
	case kc.ErrCancelled:
		return EV{Kind: ECancel, Cause: &EV{}}
	}
	var pe *kc.PanicError
	if errors.As(err, &pe) && pe == err {
		if k, ok := pe.Value.(int); ok {
			return EV{Kind: EPanic, K: k}
		}
		return EV{Kind: EOther, Text: err.Error()}
	}
	var te *kc.TimeoutError
	if errors.As(err, &te) && te == err {
		return EV{Kind: ETimeout}
	}
	var ce *kc.ChanClosedError
	if errors.As(err, &ce) && ce == err {
		c := classify(ce.Cause)
		return EV{Kind: EClosed, Cause: &c}
	}
	if errors.Is(err, kc.ErrCancelled) {
		// kc's cancellation error: Unwrap gives ErrCancelled and the cause.
		c := evNil
		if u, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range u.Unwrap() {
				if e != kc.ErrCancelled {
					c = classify(e)
				}
			}
		}
		return EV{Kind: ECancel, Cause: &c}
	}
	return EV{Kind: EOther, Text: err.Error()}
}
