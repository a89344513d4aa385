package ab

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// latencyUnits are the percentiles a latency answer gives, in order.
var latencyUnits = []string{"p50-ns", "p90-ns", "p99-ns", "p99.9-ns"}

// A latency request answers the percentiles of that many single ops, in
// order, in nanoseconds; bad requests get an error and leave the driver
// working.
func TestDriverLatency(t *testing.T) {
	a, _ := startTwo(t)
	l, err := a.Latency("JobCreate/backend=goroutine", 200)
	if err != nil {
		t.Fatal(err)
	}
	if l.N != 200 || !slices.Equal(unitsOf(l.Values), latencyUnits) {
		t.Fatalf("answer %+v; want 200 ops in %v", l, latencyUnits)
	}
	for i, v := range l.Values {
		if !(v.Value > 0) || i > 0 && v.Value < l.Values[i-1].Value {
			t.Errorf("percentiles %+v: want positive and non-decreasing", l.Values)
		}
	}
	for _, tc := range []struct {
		name    string
		samples int
		want    string
	}{
		{"AwaitCached/backend=goroutine", 10, "AwaitCached"}, // no latency sampler
		{"JobCreate/backend=nope", 10, "nope"},
		{"JobCreate", 10, "bad latency name"},
		{"JobCreate/backend=goroutine/n=10", 10, "bad latency name"},
		{"JobCreate/backend=goroutine", 0, "samples"},
	} {
		_, err := a.Latency(tc.name, tc.samples)
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, ErrDriver) {
			t.Errorf("Latency(%q, %d): err = %v; want a request error naming %q", tc.name, tc.samples, err, tc.want)
		}
	}
	if l, err := a.Latency("AwaitPending/backend=peer-go", 10); err != nil || l.N != 10 {
		t.Errorf("after errors: %+v, %v", l, err)
	}
}

// fakeDriver writes a shell script that greets with proto and answers
// every request with an error, as a driver of another protocol would.
func fakeDriver(t *testing.T, proto string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake driver is a shell script")
	}
	path := filepath.Join(t.TempDir(), "driver")
	script := "#!/bin/sh\necho 'ready " + proto + " go0 procs=1 kcslow=off'\n" +
		"while read line; do [ \"$line\" = quit ] && exit 0; echo \"err malformed request\"; done\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// A driver of protocol version 1 starts (its bench request is this
// one's) but cannot be asked for latency: ErrNoLatency, at once. An
// unknown version does not start.
func TestDriverProtocols(t *testing.T) {
	d, err := Start(fakeDriver(t, "kcbench-abdriver/1"), "base", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Latency("JobCreate/backend=goroutine", 10); d.Proto != 1 || !errors.Is(err, ErrNoLatency) || !strings.Contains(err.Error(), "base driver speaks kcbench-abdriver/1") {
		t.Errorf("version 1: Proto %d, Latency err = %v; want ErrNoLatency naming the side and version", d.Proto, err)
	}
	_, err = Start(fakeDriver(t, "kcbench-abdriver/9"), "base", nil)
	if !errors.Is(err, ErrDriver) || !strings.Contains(err.Error(), "speaks kcbench-abdriver/9") {
		t.Errorf("version 9: err = %v; want ErrDriver naming the version", err)
	}
}

// Run samples every latency sampler once a round on every side; each
// percentile becomes a row named as run's latency lines, after the
// benchmarks' rows.
func TestRunLatency(t *testing.T) {
	a, b := startTwo(t)
	var last Progress
	res, err := Run(context.Background(), Config{
		Rows:    []string{"AwaitCached/backend=goroutine"},
		Latency: []string{"JobCreate/backend=goroutine"}, LatencySamples: 100,
		Sides: []*Driver{a, b}, Rounds: 7, Discard: 1, SampleTime: time.Millisecond,
		Progress: func(p Progress) { last = p },
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Rows {
		got = append(got, r.Name+" "+r.Unit)
		if len(r.Ns[0]) != 6 || len(r.Ns[1]) != 6 {
			t.Errorf("%s %s: %d and %d values; want 6 a side", r.Name, r.Unit, len(r.Ns[0]), len(r.Ns[1]))
		}
	}
	want := []string{"AwaitCached/backend=goroutine ns/op"}
	for _, u := range latencyUnits {
		want = append(want, "Latency/JobCreate/backend=goroutine "+u)
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows %q; want %q", got, want)
	}
	if last.Round != 7 || len(last.Converging) != 0 {
		t.Errorf("last progress %+v; want round 7, done", last)
	}
	if _, err := Run(context.Background(), Config{Latency: []string{"JobCreate/backend=goroutine"}, Sides: []*Driver{a, b}, Rounds: 6, SampleTime: time.Millisecond}); !errors.Is(err, ErrConfig) {
		t.Errorf("latency without samples: err = %v; want ErrConfig", err)
	}
}
