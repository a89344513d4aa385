// Package resultstest holds what the tests of kcbench's command and its
// presentation packages share: cmd/kcbench/testdata, its result files and
// its golden files, reachable from a test in any package under cmd/kcbench.
package resultstest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kcbench/kcbench/cmd/kcbench/internal/results"
	"github.com/kcbench/kcbench/internal/testutil"
)

// Dir returns the path of cmd/kcbench/testdata: it walks up from the
// working directory (go test runs a test in its package's directory) to
// the module root, the directory with go.mod.
func Dir() string {
	dir, err := os.Getwd()
	if err != nil {
		panic("resultstest: " + err.Error())
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "cmd", "kcbench", "testdata")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			panic("resultstest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Load reads the results file name of testdata, failing t if it cannot.
func Load(t testing.TB, name string) *results.Set {
	t.Helper()
	set, err := results.Load(filepath.Join(Dir(), name))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// Golden compares got with the golden file name of testdata, or rewrites
// it when update is set (see testutil.Golden).
func Golden(t testing.TB, name, got string, update bool) {
	t.Helper()
	testutil.Golden(t, filepath.Join(Dir(), name), got, update)
}
