package paired

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// ErrOptions reports Options that Check rejects.
var ErrOptions = errors.New("invalid options")

// ErrBlind is the Err of a Blind row: its pairs are too few for the
// level its Holm family judges it at.
var ErrBlind = errors.New("too few pairs to reach the Holm level")

// A Row is one measured quantity of a paired A/B run: a benchmark's sec/op,
// say, with one Pair per round.
type Row struct {
	Name           string
	Unit           string
	HigherIsBetter bool // true for rates (ops/s), false for costs (sec/op, B/op)
	Pairs          []Pair
}

// Options are the thresholds of Judge. The zero Alpha and Confidence
// mean those of DefaultOptions; a zero MaxRegress is a real threshold
// (any significant worsening fails).
type Options struct {
	// Alpha is the family-wise error rate over all rows (Holm).
	Alpha float64
	// MaxRegress is the largest worsening (a fraction, 0.05 = 5%) that
	// still passes, compared with the point estimate.
	MaxRegress float64
	// Confidence is the level of every row's interval, such as 0.95.
	Confidence float64
}

// DefaultOptions are the gate's defaults: 5% family-wise error, 5%
// tolerated worsening, 95% intervals.
var DefaultOptions = Options{Alpha: 0.05, MaxRegress: 0.05, Confidence: 0.95}

// withDefaults fills the zero Alpha and Confidence from DefaultOptions.
func (o Options) withDefaults() Options {
	if o.Alpha == 0 {
		o.Alpha = DefaultOptions.Alpha
	}
	if o.Confidence == 0 {
		o.Confidence = DefaultOptions.Confidence
	}
	return o
}

// Check reports, as an error matching ErrOptions, Options (after
// defaults) that Judge cannot use: Alpha or Confidence outside (0, 1), a
// negative or non-finite MaxRegress.
func (o Options) Check() error {
	o = o.withDefaults()
	switch {
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("%w: alpha %v not in (0, 1)", ErrOptions, o.Alpha)
	case !(o.Confidence > 0 && o.Confidence < 1):
		return fmt.Errorf("%w: confidence %v not in (0, 1)", ErrOptions, o.Confidence)
	case !(o.MaxRegress >= 0) || math.IsInf(o.MaxRegress, 1):
		return fmt.Errorf("%w: max regress %v not a finite fraction >= 0", ErrOptions, o.MaxRegress)
	}
	return nil
}

// A Verdict is Judge's judgement on one row.
type Verdict int

// Verdicts, from best to worst; Failing tells which fail a gate.
const (
	// OK: no significant change, or a significant one within
	// MaxRegress either way.
	OK Verdict = iota
	// Improved: significantly better, by more than MaxRegress (point
	// estimate).
	Improved
	// Regressed: significantly worse (Holm-adjusted p <= Alpha), by
	// more than MaxRegress (point estimate).
	Regressed
	// TooFew: fewer than MinPairs pairs; the row is not judged and
	// takes no part in the Holm correction.
	TooFew
	// Invalid: the row cannot be judged: a value zero, negative or not
	// finite on one side of a pair that differs from the other side (an
	// allocs/op going from 0 to 1 has no ratio), or Options failing
	// Check. A row whose pairs all have A == B is OK instead, whatever
	// the values.
	Invalid
	// Blind: not significant, and it could not have been: the row is in
	// the Holm family of m rows, and its n pairs cannot reach Holm's
	// first-step level Alpha/m even if they all point the same way
	// (MinP(n) > Alpha/m), so a regression of this row alone would have
	// gone unseen. It fails a gate, as a row that could not be judged;
	// PairsFor(Alpha/m) is the number of pairs that can.
	Blind
)

// String returns the verdict as printed in a gate's table.
func (v Verdict) String() string {
	switch v {
	case OK:
		return "ok"
	case Improved:
		return "improved"
	case Regressed:
		return "regressed"
	case TooFew:
		return "too-few-pairs"
	case Invalid:
		return "invalid"
	case Blind:
		return "blind"
	}
	return "Verdict(" + strconv.Itoa(int(v)) + ")"
}

// Failing reports whether the verdict fails a gate: Regressed, and the
// rows that could not be judged or could not have shown a regression (a
// gate that cannot look must not pass).
func (v Verdict) Failing() bool { return v >= Regressed }

// A Judged row is a Row with its statistics and Verdict.
type Judged struct {
	Row Row
	// Est is the row's estimate; its MDE is at the strictest Holm
	// level, Alpha over the size of the Holm family (the judged rows
	// less those whose pairs are all equal, which can never reject). A TooFew or Invalid
	// row has the Estimate unjudged: N 0, P 1, Hi, SE and MDE +Inf.
	Est Estimate
	// AdjP is the Holm-adjusted p-value (1 for rows not judged and for
	// rows whose pairs are all equal).
	AdjP float64
	// InFamily says whether the row is in the Holm family: judged, and
	// its pairs not all equal.
	InFamily bool
	// Detectable is the smallest worsening this row's Regressed verdict
	// catches with probability Power: Est.Detectable at the strictest
	// Holm level and MaxRegress. It is never below MaxRegress.
	Detectable float64
	Verdict    Verdict
	// Err says why a TooFew or Invalid row was not judged, and why a
	// Blind row could not be significant (wrapping ErrBlind).
	Err error
}

// Judge analyses every row at opts.Confidence, corrects the p-values of
// the rows it could analyse with Holm's step-down procedure at
// family-wise rate opts.Alpha (leaving out, by Tarone's rule, the rows
// whose pairs are all equal: they cannot reject, so counting them would
// only make the rest stricter), and gives each row its Verdict:
// Regressed when the adjusted p-value is at most Alpha and the point
// estimate is worse than MaxRegress (B/A - 1 > MaxRegress for costs,
// A/B - 1 > MaxRegress for rates), Improved symmetrically, Blind when it
// is neither and its pairs are too few to reach Holm's first-step level
// Alpha/m over the family of m rows (the family Holm runs over, Tarone's
// rule applied: a row of equal pairs is never Blind), OK otherwise.
//
// The threshold is applied to the point estimate, not to an interval
// bound: the significance test already bounds the false alarms (at most
// Alpha over the whole family), and MaxRegress only keeps real but
// negligible changes from failing. A bound-based rule ("the whole
// interval is beyond MaxRegress") would miss half of all regressions
// just above the threshold; the price of the point estimate is that a
// regression just above MaxRegress is caught only about half of the
// time too, which Detectable states per row.
//
// The result has one Judged per row, in order. With opts failing Check
// every row is Invalid with that error.
func Judge(rows []Row, opts Options) []Judged {
	out := make([]Judged, len(rows))
	if err := opts.Check(); err != nil {
		for i, r := range rows {
			out[i] = Judged{Row: r, Est: unjudged, AdjP: 1, Detectable: math.Inf(1), Verdict: Invalid, Err: err}
		}
		return out
	}
	opts = opts.withDefaults()
	var judged []int // indexes of the analysed rows
	for i, r := range rows {
		out[i] = Judged{Row: r, Est: unjudged, AdjP: 1, Detectable: math.Inf(1)}
		est, err := Analyze(r.Pairs, opts.Confidence, opts.Alpha)
		switch {
		case err == nil:
			out[i].Est = est
			judged = append(judged, i)
		case errors.Is(err, ErrTooFew):
			out[i].Verdict, out[i].Err = TooFew, err
		case errors.Is(err, ErrNonPositive) && allEqual(r.Pairs):
			out[i].Est = equalEstimate(len(r.Pairs))
			judged = append(judged, i)
		default:
			out[i].Verdict, out[i].Err = Invalid, err
		}
	}
	ps := make([]float64, len(judged))
	for k, i := range judged {
		ps[k] = out[i].Est.P
	}
	adj, family := HolmTarone(ps, func(k int) bool { return allEqual(rows[judged[k]].Pairs) })
	rowAlpha := opts.Alpha / float64(max(1, family))
	for k, i := range judged {
		j := &out[i]
		j.AdjP, j.InFamily = adj[k], !allEqual(j.Row.Pairs)
		j.Est.MDE = mde(j.Est.SE, j.Est.N, rowAlpha, 0)
		j.Detectable = j.Est.Detectable(rowAlpha, opts.MaxRegress)
		worse := math.Log(j.Est.Ratio) // > 0: worse
		if j.Row.HigherIsBetter {
			worse = -worse
		}
		limit := math.Log1p(opts.MaxRegress)
		switch {
		case j.AdjP > opts.Alpha:
			j.Verdict = OK
		case worse > limit:
			j.Verdict = Regressed
		case -worse > limit:
			j.Verdict = Improved
		default:
			j.Verdict = OK
		}
		if j.Verdict == OK && j.InFamily && MinP(j.Est.N) > rowAlpha {
			j.Verdict = Blind
			j.Err = fmt.Errorf("%w: %d pairs reach at best p = %.2g, above alpha/m = %v/%d = %.2g; need >= %d pairs",
				ErrBlind, j.Est.N, MinP(j.Est.N), opts.Alpha, family, rowAlpha, PairsFor(rowAlpha))
		}
	}
	return out
}

// unjudged is the Estimate of a row Judge could not analyse.
var unjudged = Estimate{P: 1, Hi: math.Inf(1), SE: math.Inf(1), MDE: math.Inf(1)}

// allEqual reports whether every pair has A == B.
func allEqual(pairs []Pair) bool {
	for _, p := range pairs {
		if p.A != p.B {
			return false
		}
	}
	return true
}

// equalEstimate is the Estimate of n pairs that all have A == B: no
// change, exactly, and any change of every pair would show.
func equalEstimate(n int) Estimate {
	return Estimate{N: n, Ratio: 1, Lo: 1, Hi: 1, P: 1, SE: 0}
}

// HolmTarone returns the Holm-Bonferroni adjusted p-values of ps (in the
// order of ps) over the family of the hypotheses that can reject, and the
// size of that family. A hypothesis i with cannotReject(i) true, one
// whose smallest attainable p-value is 1 (a row whose pairs are all
// equal, or whose two samples hold one value between them: B/op and
// allocs/op of unchanged code, typically), is left out of the family by
// Tarone's rule and gets the adjusted p-value 1: it can never be
// rejected, so leaving it out keeps the family-wise rate and spares the
// hypotheses that vary a stricter level.
func HolmTarone(ps []float64, cannotReject func(i int) bool) (adj []float64, family int) {
	var in []int // indexes into ps of the family
	for i := range ps {
		if !cannotReject(i) {
			in = append(in, i)
		}
	}
	fps := make([]float64, len(in))
	for f, i := range in {
		fps[f] = ps[i]
	}
	adj = make([]float64, len(ps))
	for i := range adj {
		adj[i] = 1
	}
	for f, a := range Holm(fps) {
		adj[in[f]] = a
	}
	return adj, len(in)
}

// Holm returns the Holm-Bonferroni adjusted p-values of ps, in the order
// of ps: sorting ascending, the i-th smallest (from 0) becomes the running
// maximum of (m-i)·p, capped at 1. Rejecting every hypothesis whose
// adjusted p-value is at most alpha is Holm's step-down procedure at
// family-wise error rate alpha.
func Holm(ps []float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ps[a], ps[b]) })
	adj := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		running = math.Max(running, math.Min(1, float64(m-rank)*ps[i]))
		adj[i] = running
	}
	return adj
}
