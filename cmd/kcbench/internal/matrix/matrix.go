// Package matrix renders the conformance matrix of "kcbench conform": one
// row per case, one column per backend, each cell pass/fail and the time
// the case took, followed by the failures in full. It is presentation only:
// running the cases is package conformance's job.
package matrix

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Cell is the outcome of one case on one backend.
type Cell struct {
	Err      error         // nil when the case passed
	Duration time.Duration // how long the case took
}

// Matrix is the outcome of a set of cases on a set of backends.
type Matrix struct {
	Backends []string          // column order
	Cases    []string          // row order
	Specs    map[string]string // case -> the spec section it checks
	Cells    map[string][]Cell // case -> one cell per backend, in Backends order
}

// Failures returns the number of failed cells.
func (m *Matrix) Failures() int {
	n := 0
	for _, cells := range m.Cells {
		for _, c := range cells {
			if c.Err != nil {
				n++
			}
		}
	}
	return n
}

// FailingBackends returns the backends that failed at least one case, in
// column order.
func (m *Matrix) FailingBackends() []string {
	var out []string
	for i, b := range m.Backends {
		for _, cells := range m.Cells {
			if i < len(cells) && cells[i].Err != nil {
				out = append(out, b)
				break
			}
		}
	}
	return out
}

// Formats lists the values Render accepts.
var Formats = []string{"text", "markdown"}

// Render writes m in format ("text" or "markdown"). If times is false, cells
// omit durations (for reproducible output).
func Render(w io.Writer, m *Matrix, format string, times bool) error {
	switch format {
	case "text":
		return renderText(w, m, times)
	case "markdown":
		return renderMarkdown(w, m, times)
	}
	return fmt.Errorf("matrix: unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

func cellText(c Cell, times bool) string {
	mark := "ok"
	if c.Err != nil {
		mark = "FAIL"
	}
	if !times {
		return mark
	}
	return fmt.Sprintf("%s %s", mark, round(c.Duration))
}

// round shortens a duration to three significant digits.
func round(d time.Duration) time.Duration {
	for _, unit := range []time.Duration{time.Second, time.Millisecond, time.Microsecond} {
		if d >= unit {
			return d.Round(unit / 100)
		}
	}
	return d
}

func renderText(w io.Writer, m *Matrix, times bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "case\tspec\t%s\n", strings.Join(m.Backends, "\t"))
	for _, name := range m.Cases {
		row := []string{name, m.Specs[name]}
		for _, c := range m.Cells[name] {
			row = append(row, cellText(c, times))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return summary(w, m, "")
}

func renderMarkdown(w io.Writer, m *Matrix, times bool) error {
	fmt.Fprintf(w, "| case | spec | %s |\n", strings.Join(m.Backends, " | "))
	fmt.Fprintf(w, "|---|---|%s\n", strings.Repeat("---|", len(m.Backends)))
	for _, name := range m.Cases {
		row := []string{name, m.Specs[name]}
		for _, c := range m.Cells[name] {
			row = append(row, cellText(c, times))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(w)
	return summary(w, m, "    ")
}

// summary writes the totals and every failure in full, indented by indent.
func summary(w io.Writer, m *Matrix, indent string) error {
	total := len(m.Cases) * len(m.Backends)
	fails := m.Failures()
	if _, err := fmt.Fprintf(w, "\n%d passed, %d failed\n", total-fails, fails); err != nil {
		return err
	}
	for i, b := range m.Backends {
		for _, name := range m.Cases {
			if err := m.Cells[name][i].Err; err != nil {
				msg := strings.ReplaceAll(err.Error(), "\n", "\n"+indent+"    ")
				fmt.Fprintf(w, "\n%s%s on %s:\n%s    %s\n", indent, name, b, indent, msg)
			}
		}
	}
	return nil
}
