package compare

import (
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// align is the alignment of text within a grid cell.
type align int

// Alignments.
const (
	left align = iota
	center
	right
)

// A gridCell is one cell of a grid: text spanning span columns from
// col, preceded by a left margin (a separator such as " ± " or " │ ").
type gridCell struct {
	col, span int
	text      string
	margin    string
	align     align
}

// A grid lays out text in columns for a fixed-width font. Every column
// is as wide as its widest single-column cell; a cell spanning several
// columns widens the last of them if it does not fit. Columns share one
// left margin, the widest margin of their cells, right-aligned.
type grid struct {
	rows  [][]gridCell
	ncols int
}

// row starts a new row.
func (g *grid) row() { g.rows = append(g.rows, nil) }

// add adds a cell to the current row.
func (g *grid) add(c gridCell) {
	if c.span < 1 {
		c.span = 1
	}
	last := len(g.rows) - 1
	g.rows[last] = append(g.rows[last], c)
	g.ncols = max(g.ncols, c.col+c.span)
}

// width returns the display width of s.
func width(s string) int { return utf8.RuneCountInString(s) }

// layout computes the margin and text width of every column.
func (g *grid) layout() (margins, widths []int) {
	margins = make([]int, g.ncols)
	widths = make([]int, g.ncols)
	for _, r := range g.rows {
		for _, c := range r {
			margins[c.col] = max(margins[c.col], width(c.margin))
			if c.span == 1 {
				widths[c.col] = max(widths[c.col], width(c.text))
			}
		}
	}
	for _, r := range g.rows {
		for _, c := range r {
			if c.span == 1 {
				continue
			}
			have := widths[c.col]
			for i := c.col + 1; i < c.col+c.span; i++ {
				have += margins[i] + widths[i]
			}
			if need := width(c.text); need > have {
				widths[c.col+c.span-1] += need - have
			}
		}
	}
	return margins, widths
}

// write prints the grid to w, one line per row, without trailing
// spaces.
func (g *grid) write(w io.Writer) error {
	margins, widths := g.layout()
	offsets := make([]int, g.ncols+1)
	for i := range g.ncols {
		offsets[i+1] = offsets[i] + margins[i] + widths[i]
	}
	var line strings.Builder
	for _, r := range g.rows {
		line.Reset()
		pos := 0
		slices.SortStableFunc(r, func(a, b gridCell) int { return a.col - b.col })
		for _, c := range r {
			if strings.TrimSpace(c.text) == "" && strings.TrimSpace(c.margin) == "" {
				continue
			}
			line.WriteString(strings.Repeat(" ", max(0, offsets[c.col]-pos)))
			line.WriteString(pad(c.margin, margins[c.col], right))
			span := offsets[c.col+c.span] - offsets[c.col] - margins[c.col]
			s := pad(c.text, span, c.align)
			line.WriteString(s)
			pos = offsets[c.col] + margins[c.col] + width(s)
		}
		if _, err := io.WriteString(w, strings.TrimRight(line.String(), " ")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// pad aligns s within n columns.
func pad(s string, n int, a align) string {
	gap := n - width(s)
	if gap <= 0 {
		return s
	}
	switch a {
	case right:
		return strings.Repeat(" ", gap) + s
	case center:
		return strings.Repeat(" ", gap/2) + s + strings.Repeat(" ", gap-gap/2)
	default:
		return s + strings.Repeat(" ", gap)
	}
}

// superDigits are the superscript digits of footnote marks.
var superDigits = []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")

// superscript returns i in superscript digits.
func superscript(i int) string {
	if i == 0 {
		return string(superDigits[0])
	}
	var buf []rune
	for ; i > 0; i /= 10 {
		buf = append([]rune{superDigits[i%10]}, buf...)
	}
	return string(buf)
}

// footnotes numbers warnings in order of first appearance.
type footnotes struct {
	list  []string
	index map[string]int
}

// marks returns the footnote marks of errs ("¹ ²"), numbering new
// messages.
func (f *footnotes) marks(errs ...[]error) string {
	if f.index == nil {
		f.index = make(map[string]int)
	}
	var marks []string
	for _, list := range errs {
		for _, err := range list {
			msg := err.Error()
			i, ok := f.index[msg]
			if !ok {
				i = len(f.list)
				f.index[msg] = i
				f.list = append(f.list, msg)
			}
			marks = append(marks, superscript(i+1))
		}
	}
	return strings.Join(marks, " ")
}
