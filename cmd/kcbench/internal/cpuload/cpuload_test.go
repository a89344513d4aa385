package cpuload

import (
	"strings"
	"testing"
	"time"
)

const statText = `cpu  1000 20 300 50000 40 5 6 7 0 0
cpu0 500 10 150 25000 20 2 3 3 0 0
cpu1 500 10 150 25000 20 3 3 4 0 0
intr 12345
ctxt 678
`

func TestParseStat(t *testing.T) {
	m, err := parseStat(statText)
	if err != nil {
		t.Fatal(err)
	}
	if want := (machineTimes{busy: 1000 + 20 + 300 + 5 + 6, steal: 7, cpus: 2}); m != want {
		t.Errorf("parseStat: got %+v; want %+v", m, want)
	}
}

func TestParseStatErrors(t *testing.T) {
	for name, text := range map[string]string{
		"no cpu line":  "intr 1\nctxt 2\n",
		"short line":   "cpu 1 2 3 4\n",
		"not a number": "cpu 1 2 x 4 5 6 7 8 9 10\n",
	} {
		if _, err := parseStat(text); err == nil {
			t.Errorf("%s: parseStat(%q): got nil error; want one", name, text)
		}
	}
}

func TestLoad(t *testing.T) {
	l := Load{Elapsed: 10 * time.Second, CPUs: 2, Busy: 15 * time.Second, Own: 12 * time.Second}
	if got, want := l.Others(), 3*time.Second; got != want {
		t.Errorf("Others: got %v; want %v", got, want)
	}
	if got := l.OtherCPUs(); got < 0.299 || got > 0.301 {
		t.Errorf("OtherCPUs: got %v; want 0.3", got)
	}
	if !l.Noisy() {
		t.Errorf("Noisy with 0.3 other CPUs: got false; want true")
	}
	if s := l.String(); !strings.Contains(s, "0.30 of 2 CPUs") || !strings.Contains(s, "busy machine") {
		t.Errorf("String: got %q; want 0.30 of 2 CPUs and the busy-machine note", s)
	}
	quiet := Load{Elapsed: 10 * time.Second, CPUs: 2, Busy: 12 * time.Second, Own: 12500 * time.Millisecond}
	if quiet.Others() != 0 || quiet.Noisy() {
		t.Errorf("own time above busy time: got Others %v, Noisy %v; want 0, false", quiet.Others(), quiet.Noisy())
	}
	if s := quiet.String(); strings.Contains(s, "busy machine") {
		t.Errorf("String of a quiet load: got %q; want no busy-machine note", s)
	}
	stolen := Load{Elapsed: 10 * time.Second, CPUs: 2, Steal: 2 * time.Second}
	if !stolen.Noisy() || !strings.Contains(stolen.String(), "steal 10.0%") {
		t.Errorf("10%% steal: got Noisy %v, %q; want true and steal 10.0%%", stolen.Noisy(), stolen.String())
	}
	if s := (Load{Elapsed: 1234 * time.Millisecond, CPUs: 1}).String(); !strings.Contains(s, "over 1.23s") {
		t.Errorf("String of a short load: got %q; want over 1.23s", s)
	}
	if (Load{}).OtherCPUs() != 0 {
		t.Errorf("zero Load: OtherCPUs not 0")
	}
}
