package results

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// write stores content in a temporary file and returns its path.
func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestIdentify(t *testing.T) {
	for name, want := range map[string]ID{
		"JobCreate/backend=stealing-2":                 {Workload: "JobCreate", Backend: "stealing", Procs: "2"},
		"FanOut/backend=peer-go/n=1000-8":              {Workload: "FanOut", Backend: "peer-go", N: "1000", Procs: "8"},
		"FanOut/n=10/backend=vcore":                    {Workload: "FanOut", Backend: "vcore", N: "10"},
		"Latency/JobCreate/backend=vcore-2":            {Workload: "JobCreate", Backend: "vcore", Procs: "2", Latency: true},
		"Latency/AwaitPending/backend=peer-go":         {Workload: "AwaitPending", Backend: "peer-go", Latency: true},
		"Other/positional/backend=x":                   {Workload: "Other", Backend: "x"},
		"Latency":                                      {Workload: "Latency"},
		"CancelFanout/backend=stealing/n=1000/extra-4": {Workload: "CancelFanout", Backend: "stealing", N: "1000", Procs: "4"},
	} {
		if got := Identify(&benchfmt.Result{Name: benchfmt.Name(name)}); got != want {
			t.Errorf("Identify(%q) = %+v, want %+v", name, got, want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(); !errors.Is(err, ErrNoInput) {
		t.Errorf("Load() = %v, want ErrNoInput", err)
	}
	missing := filepath.Join(t.TempDir(), "missing.txt")
	if _, err := Load(missing); !errors.Is(err, ErrUnreadable) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want ErrUnreadable wrapping fs.ErrNotExist", err)
	}
	good := write(t, "BenchmarkA 1 2 ns/op\n")
	empty := write(t, "goos: linux\nPASS\n")
	if _, err := Load(good, empty); !errors.Is(err, ErrNoResults) || !strings.Contains(err.Error(), empty) {
		t.Errorf("Load(good, empty) = %v, want ErrNoResults naming %s", err, empty)
	}
	if _, err := Load("a="+good, "b="+empty); !errors.Is(err, ErrNoResults) || !strings.HasPrefix(err.Error(), "b:") {
		t.Errorf("Load with labels = %v, want ErrNoResults naming label b", err)
	}
	// A file of malformed lines: the error carries their syntax errors.
	malformed := write(t, "BenchmarkA 1 abc ns/op\n")
	_, err := Load(malformed)
	var nr *NoResultsError
	if !errors.As(err, &nr) || nr.File != malformed || len(nr.Warnings) != 1 || err.Error() != malformed+": no benchmark results" ||
		!strings.Contains(nr.Warnings[0].Error(), malformed+":1: parsing measurement") {
		t.Errorf("Load(malformed) = %v (%#v), want a *NoResultsError with the syntax error", err, nr)
	}
	set, err := Load(good, good)
	if err != nil {
		t.Fatalf("Load(same file twice) = %v", err)
	}
	if got := fmt.Sprint(set.Results[0].GetConfig(FileKey), " ", set.Results[1].GetConfig(FileKey)); got != good+"#0 "+good+"#1" {
		t.Errorf(".file labels = %q", got)
	}
	for _, v := range []string{"NaN", "+Inf", "-Inf"} {
		path := write(t, "BenchmarkA 1 2 ns/op\nBenchmarkA 1 "+v+" ns/op\n")
		if _, err := Load(path); !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), path+":2:") {
			t.Errorf("Load(%s) = %v, want ErrNonFinite at line 2", v, err)
		}
	}
	bad := write(t, "BenchmarkA 1 2 ns/op\nBenchmarkB x ns/op\n")
	set, err = Load(bad)
	if err != nil || len(set.Warnings) != 1 || len(set.Results) != 1 {
		t.Errorf("Load(syntax error) = %v, %d warnings, %d results; want 1 warning, 1 result", err, len(set.Warnings), len(set.Results))
	}
}

func TestSeriesAndSelect(t *testing.T) {
	set, err := Load(write(t, `goos: linux
commit: abc
BenchmarkJobCreate/backend=stealing-1 1 400 ns/op 1 allocs/op
BenchmarkJobCreate/backend=stealing-2 1 300 ns/op 1 allocs/op
BenchmarkJobCreate/backend=stealing-2 1 310 ns/op 1 allocs/op
BenchmarkJobCreate/backend=peer-go-2 1 480 ns/op 1 allocs/op
BenchmarkFanOut/backend=stealing/n=100-2 1 3000 ns/op
BenchmarkFanOut/backend=stealing/n=20-2 1 600 ns/op
BenchmarkLatency/JobCreate/backend=stealing-2 9 1 p50-ns 2 p90-ns 3 p99-ns 4 p99.9-ns
`))
	if err != nil {
		t.Fatal(err)
	}
	series := set.Series()
	if len(series) != 12 {
		t.Fatalf("%d series, want 12", len(series))
	}
	got := Select(series, Query{Workload: "JobCreate", Backend: "stealing", Unit: SecPerOp})
	if len(got) != 1 || got[0].Procs != "2" || len(got[0].Values) != 2 {
		t.Errorf("Select keeps the highest GOMAXPROCS: got %+v", got)
	}
	if m := set.Summary(got[0], 0.95).Center; math.Abs(m-305e-9) > 1e-18 {
		t.Errorf("median = %v, want 305e-9", m)
	}
	if w := Workloads(series); fmt.Sprint(w) != "[JobCreate FanOut]" {
		t.Errorf("Workloads = %v", w)
	}
	if s := Sizes(series); fmt.Sprint(s) != "[20 100]" {
		t.Errorf("Sizes = %v, want numeric order", s)
	}
	if b := Backends(Select(series, Query{Workload: "JobCreate", AnyN: true})); fmt.Sprint(b) != "[stealing peer-go]" {
		t.Errorf("Backends = %v", b)
	}
	zero, err := Load(write(t, "BenchmarkA 1 0 ns/op\nBenchmarkA 1 2 ns/op\n"))
	if err != nil {
		t.Fatal(err)
	}
	if zs := zero.Series(); len(zs) != 1 || zs[0].Unit != SecPerOp || len(zs[0].Values) != 2 {
		t.Errorf("0 ns/op must join the sec/op series: %+v", zs)
	}
	lat := Select(series, Query{Latency: true, Unit: "p99.9-sec"})
	if len(lat) != 1 || lat[0].Values[0] != 4e-9 {
		t.Errorf("latency p99.9 = %+v", lat)
	}
	if set.Config("commit") != "abc" || set.Config("nope") != "" {
		t.Errorf("Config: commit=%q", set.Config("commit"))
	}
}

func TestBetterAndTargets(t *testing.T) {
	set, err := Load(write(t, "Unit score better=higher\nUnit lat-ns better=lower\nBenchmarkA 1 2 score\n"))
	if err != nil {
		t.Fatal(err)
	}
	for unit, want := range map[string]int{
		"sec/op": -1, "B/op": -1, "allocs/op": -1, "p99-sec": -1, "B/s": 1, "ops/s": 1,
		"jobs/sec": 1, "score": 1, "lat-sec": -1, "widgets": -1,
	} {
		if got := set.Better(unit); got != want {
			t.Errorf("Better(%q) = %d, want %d", unit, got, want)
		}
	}
	jc := &Series{ID: ID{Workload: "JobCreate", Backend: "vcore"}, Unit: SecPerOp}
	if tg, ok := TargetFor(jc); !ok || tg.Max != 450e-9 || !tg.Met(450e-9) || tg.Met(451e-9) || tg.StretchMet(301e-9) {
		t.Errorf("JobCreate target: %+v %v", tg, ok)
	}
	for _, s := range []*Series{
		{ID: ID{Workload: "JobCreate", Backend: "peer-go"}, Unit: SecPerOp},
		{ID: ID{Workload: "JobCreate", Backend: Floor}, Unit: SecPerOp},
		{ID: ID{Workload: "JobCreate", Backend: "vcore"}, Unit: "allocs/op"},
		{ID: ID{Workload: "JobCreate", Backend: "vcore", Latency: true}, Unit: SecPerOp},
		{ID: ID{Workload: "FanOut", Backend: "vcore"}, Unit: SecPerOp},
	} {
		if _, ok := TargetFor(s); ok {
			t.Errorf("TargetFor(%+v) applies a target", s)
		}
	}
}

// TestReferences checks that the floor is a reference like the peers:
// ordered after them, given a ratio row after them, and nothing else is.
func TestReferences(t *testing.T) {
	for _, b := range append(slices.Clone(Peers), Floor) {
		if !IsReference(b) {
			t.Errorf("IsReference(%q) = false", b)
		}
	}
	for _, b := range []string{"stealing", "goroutine", "floorx", "peer"} {
		if IsReference(b) {
			t.Errorf("IsReference(%q) = true", b)
		}
	}
	if got, want := References(), append(slices.Clone(Peers), Floor); !slices.Equal(got, want) {
		t.Errorf("References() = %v, want %v", got, want)
	}
	var series []*Series
	for _, b := range []string{Floor, "peer-go", "stealing"} {
		series = append(series, &Series{ID: ID{Workload: "JobCreate", Backend: b}, Unit: SecPerOp})
	}
	if got, want := Backends(series), []string{"stealing", "peer-go", Floor}; !slices.Equal(got, want) {
		t.Errorf("Backends = %v, want %v", got, want)
	}
}
