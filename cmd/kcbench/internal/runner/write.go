package runner

import (
	"bufio"
	"io"
	"os"

	"golang.org/x/perf/benchfmt"
)

// Write writes the results of out in the Go benchmark format: the file
// configuration lines, then one line per result.
func (out *Output) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fw := benchfmt.NewWriter(bw)
	for _, r := range out.Results {
		if err := fw.Write(r); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteFile writes the results of out to path.
func (out *Output) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := out.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
