package profiles

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// cpuProfile returns an encoded CPU-like profile with the given cpu
// nanoseconds per function.
func cpuProfile(t *testing.T, ns map[string]int64) []byte {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
	}
	var id uint64
	for name, v := range ns {
		id++
		fn := &profile.Function{ID: id, Name: name}
		loc := &profile.Location{ID: id, Line: []profile.Line{{Function: fn}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, loc)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{v / 10_000_000, v}})
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// byFunction sums the cpu values of p per function.
func byFunction(p *profile.Profile) map[string]int64 {
	out := map[string]int64{}
	for _, s := range p.Sample {
		out[s.Location[0].Line[0].Function.Name] += s.Value[1]
	}
	return out
}

func TestDiffCPU(t *testing.T) {
	// A ran 100 ops, B 200: B's values are halved before subtracting.
	a := cpuProfile(t, map[string]int64{"launch": 600e6, "wait": 200e6})
	b := cpuProfile(t, map[string]int64{"launch": 800e6, "spawn": 400e6})
	diff, err := DiffCPU(a, b, 100, 200)
	if err != nil {
		t.Fatal(err)
	}
	got := byFunction(diff)
	want := map[string]int64{"launch": 200e6, "wait": 200e6, "spawn": -200e6}
	for fn, v := range want {
		if got[fn] != v {
			t.Errorf("%s: %d, want %d (all: %v)", fn, got[fn], v, got)
		}
	}
	if tot := Total(diff, 1); tot != 200e6 {
		t.Errorf("Total = %d, want 200e6", tot)
	}
	// The difference is itself a valid profile.
	var enc bytes.Buffer
	if err := diff.Write(&enc); err != nil {
		t.Fatal(err)
	}
	if _, err := profile.ParseData(enc.Bytes()); err != nil {
		t.Errorf("re-parsing the difference: %v", err)
	}
}

func TestDiffCPUErrors(t *testing.T) {
	a := cpuProfile(t, map[string]int64{"f": 1e7})
	for name, tc := range map[string]struct {
		a, b       []byte
		opsA, opsB int
	}{
		"zero ops":     {a, a, 0, 1},
		"garbage":      {a, []byte("not a profile"), 1, 1},
		"garbage A":    {[]byte("x"), a, 1, 1},
		"incompatible": {a, heapLike(t), 1, 1},
	} {
		if _, err := DiffCPU(tc.a, tc.b, tc.opsA, tc.opsB); !errors.Is(err, ErrDiff) {
			t.Errorf("%s: err = %v, want ErrDiff", name, err)
		}
	}
}

// heapLike returns a profile whose sample types differ from a CPU profile's.
func heapLike(t *testing.T) []byte {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "alloc_space", Unit: "bytes"}},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"}}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRecord(t *testing.T) {
	s, err := Record(func(b *testing.B) {
		for range b.N {
			_ = make([]byte, 128)
		}
	}, "100x")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range Kinds {
		if _, err := profile.ParseData(s.Profiles[kind]); err != nil {
			t.Errorf("%s profile: %v", kind, err)
		}
	}
	if s.CPURun.N != 100 || s.OtherRun.N != 100 {
		t.Errorf("runs of %d and %d ops, want 100", s.CPURun.N, s.OtherRun.N)
	}
}

// TestRecordTimedShare checks that Record measures how much of the
// profiled run the benchmark timed: here a timed sleep after an untimed
// one of the same length, in one round.
func TestRecordTimedShare(t *testing.T) {
	const d = 20 * time.Millisecond
	s, err := Record(func(b *testing.B) {
		b.StopTimer()
		time.Sleep(d) // setup
		b.StartTimer()
		time.Sleep(d)
	}, "1x")
	if err != nil {
		t.Fatal(err)
	}
	if s.CPUTimed < d {
		t.Errorf("CPUTimed = %v, want at least the timed sleep %v", s.CPUTimed, d)
	}
	if s.CPURun.Wall < s.CPUTimed+d {
		t.Errorf("Wall = %v, want at least CPUTimed %v plus the untimed sleep %v", s.CPURun.Wall, s.CPUTimed, d)
	}
	if sh := s.TimedShare(); sh <= 0 || sh >= 1 {
		t.Errorf("TimedShare = %v, want strictly between 0 and 1", sh)
	}
}
