// Command gen writes the synthetic benchmark results under
// cmd/kcbench/testdata. The output is deterministic (a fixed PCG seed),
// so rerunning it reproduces the committed files byte for byte:
//
//	go run ./cmd/kcbench/testdata/gen -o cmd/kcbench/testdata
//
// Files:
//
//	results.txt  every workload, kcbench backends, peers and the floor,
//	             latency lines
//	old.txt      a small A/B "before" file
//	new.txt      the "after" file: stealing JobCreate +20%, AwaitCached -30%
//	small.txt    4 samples per benchmark, to exercise benchstat's warnings
//	baseline.txt a baseline for results.txt: JobCreate, AwaitCached and
//	             FanOut; stealing JobCreate was 7% faster, vcore
//	             AwaitCached 20% slower
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// header is the file configuration of every generated file.
const header = `goos: linux
goarch: amd64
pkg: github.com/kcbench/kcbench/perf
cpu: Synthetic CPU @ 2.00GHz
go-version: go1.26.8
commit: 0123456789abcdef0123456789abcdef01234567
kcbench-version: v0.1.0-test
`

// bench describes one synthetic benchmark: median ns/op, B/op, allocs/op.
type bench struct {
	name          string
	ns            float64
	bytes, allocs int
}

// gen holds the random source and the output being built.
type gen struct {
	rng *rand.Rand
	b   strings.Builder
}

// sample writes count lines of b with about 2% log-normal noise scaled
// by factor.
func (g *gen) sample(b bench, count int, factor float64) {
	for range count {
		ns := b.ns * factor * math.Exp(g.rng.NormFloat64()*0.02)
		iters := int(1e9 / ns)
		fmt.Fprintf(&g.b, "Benchmark%s-2 \t%8d\t%12.1f ns/op\t%8d B/op\t%8d allocs/op\n",
			b.name, iters, ns, b.bytes, b.allocs)
	}
}

// latency writes count latency lines for workload on backend.
func (g *gen) latency(workload, backend string, p50 float64, count int) {
	for range count {
		f := math.Exp(g.rng.NormFloat64() * 0.03)
		fmt.Fprintf(&g.b, "BenchmarkLatency/%s/backend=%s-2 \t%8d\t%.0f p50-ns\t%.0f p90-ns\t%.0f p99-ns\t%.0f p99.9-ns\n",
			workload, backend, 100000, p50*f, 1.8*p50*f, 6*p50*f, 20*p50*f)
	}
}

// all lists the benchmarks of results.txt.
func all() []bench {
	bs := []bench{
		{"JobCreate/backend=goroutine", 520, 96, 2},
		{"JobCreate/backend=stealing", 312, 64, 1},
		{"JobCreate/backend=vcore", 281, 64, 1},
		{"JobCreate/backend=peer-go", 480, 16, 1},
		{"JobCreate/backend=peer-errgroup", 534, 24, 1},
		{"JobCreate/backend=peer-conc", 612, 48, 2},
		{"AwaitCached/backend=goroutine", 96, 0, 0},
		{"AwaitCached/backend=stealing", 61, 0, 0},
		{"AwaitCached/backend=vcore", 163, 0, 0},
		{"AwaitCached/backend=peer-go", 21, 0, 0},
		{"AwaitPending/backend=goroutine", 910, 112, 2},
		{"AwaitPending/backend=stealing", 702, 80, 1},
		{"AwaitPending/backend=vcore", 1490, 80, 1},
		{"AwaitPending/backend=peer-go", 605, 96, 1},
		{"WaitersStorm/backend=stealing/n=32", 9100, 2048, 33},
		{"WaitersStorm/backend=peer-go/n=32", 11800, 1024, 33},
		{"NestedScopes/backend=stealing", 1150, 256, 4},
		{"NestedScopes/backend=peer-errgroup", 1720, 320, 6},
		{"ChanPingPong/backend=stealing", 240, 0, 0},
		{"ChanPingPong/backend=peer-go", 505, 0, 0},
	}
	for _, n := range []int{10, 100, 1000} {
		scale := float64(n)
		for _, b := range []bench{
			{"CancelFanout/backend=goroutine", 410, 80, 2},
			{"CancelFanout/backend=stealing", 150, 48, 1},
			{"CancelFanout/backend=peer-context", 230, 64, 1},
			{"FanOut/backend=goroutine", 560, 96, 2},
			{"FanOut/backend=stealing", 330, 64, 1},
			{"FanOut/backend=peer-go", 500, 16, 1},
			{"FanOut/backend=peer-conc", 640, 48, 2},
		} {
			b.name += fmt.Sprintf("/n=%d", n)
			b.ns *= scale * (1 + 0.1*math.Log10(scale))
			b.bytes *= n
			b.allocs *= n
			bs = append(bs, b)
		}
	}
	return bs
}

// floors lists the floor benchmarks of results.txt: one per workload
// and size of all.
func floors() []bench {
	bs := []bench{
		{"JobCreate/backend=floor", 61, 128, 0},
		{"AwaitCached/backend=floor", 1.3, 0, 0},
		{"AwaitPending/backend=floor", 74, 128, 0},
		{"WaitersStorm/backend=floor/n=32", 2900, 4224, 0},
		{"NestedScopes/backend=floor", 640, 12800, 1},
		{"ChanPingPong/backend=floor", 110, 0, 0},
	}
	for _, n := range []int{10, 100, 1000} {
		for _, b := range []bench{
			{"CancelFanout/backend=floor", 60, 0, 0},
			{"FanOut/backend=floor", 105, 0, 0},
		} {
			b.name += fmt.Sprintf("/n=%d", n)
			b.ns *= float64(n)
			bs = append(bs, b)
		}
	}
	return bs
}

// write stores g's output under dir/name.
func (g *gen) write(dir, name string) {
	if err := os.WriteFile(filepath.Join(dir, name), []byte(g.b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	g.b.Reset()
}

func main() {
	dir := flag.String("o", ".", "output `directory`")
	flag.Parse()
	g := &gen{rng: rand.New(rand.NewPCG(1, 2))}

	g.b.WriteString(header)
	for _, b := range all() {
		g.sample(b, 10, 1)
	}
	for _, w := range []string{"JobCreate", "AwaitPending"} {
		for i, be := range []string{"goroutine", "stealing", "vcore", "peer-go"} {
			g.latency(w, be, 250+100*float64(i), 10)
		}
	}
	// The floor rows come last, from a generator of their own, so that
	// every line before them stays what it was before they were added.
	fg := &gen{rng: rand.New(rand.NewPCG(3, 4))}
	for _, b := range floors() {
		fg.sample(b, 10, 1)
	}
	g.b.WriteString(fg.b.String())
	g.write(*dir, "results.txt")

	ab := []bench{
		{"JobCreate/backend=goroutine", 520, 96, 2},
		{"JobCreate/backend=stealing", 312, 64, 1},
		{"AwaitCached/backend=stealing", 61, 0, 0},
		{"FanOut/backend=stealing/n=100", 36000, 6400, 100},
	}
	for _, name := range []string{"old.txt", "new.txt"} {
		g.b.WriteString(header)
		for _, b := range ab {
			factor := 1.0
			if name == "new.txt" && b.name == "JobCreate/backend=stealing" {
				factor = 1.2
			}
			if name == "new.txt" && b.name == "AwaitCached/backend=stealing" {
				factor = 0.7
			}
			g.sample(b, 10, factor)
		}
		g.write(*dir, name)
	}

	g.b.WriteString(header)
	for _, b := range ab[:3] {
		g.sample(b, 4, 1)
	}
	g.write(*dir, "small.txt")

	g.b.WriteString(strings.Replace(header, "0123456789abcdef", "fedcba9876543210", 1))
	for _, b := range all() {
		factor := 1.0
		switch {
		case b.name == "JobCreate/backend=stealing":
			factor = 0.93
		case b.name == "AwaitCached/backend=vcore":
			factor = 1.2
		case !strings.HasPrefix(b.name, "JobCreate/") && !strings.HasPrefix(b.name, "AwaitCached/") &&
			!strings.HasPrefix(b.name, "FanOut/"):
			continue
		}
		g.sample(b, 10, factor)
	}
	g.write(*dir, "baseline.txt")
}
