package paired

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenRows are synthetic runs of the kinds a gate meets, from a seeded
// generator: A/A, small and large slowdowns, bursts, drift, ties.
func goldenRows() []Row {
	r := rand.New(rand.NewPCG(11, 12))
	gen := func(name string, n int, shift float64, nz noise, tie bool) Row {
		ps := pairsWith(r, nz, n, shift)
		if tie {
			for i := range ps {
				ps[i].B = ps[i].A * math.Round(ps[i].B/ps[i].A*20) / 20 // ratios to 5%: many ties
			}
		}
		return Row{Name: name, Unit: "sec/op", Pairs: ps}
	}
	return []Row{
		gen("aa-normal-50", 50, 0, noises[0], false),
		gen("aa-bursts-200", 200, 0, noises[1], false),
		gen("slow5-normal-50", 50, math.Log(1.05), noises[0], false),
		gen("slow10-normal-20", 20, math.Log(1.10), noises[0], false),
		gen("slow10-bursts-200", 200, math.Log(1.10), noises[1], false),
		gen("slow3-t3-300", 300, math.Log(1.03), noises[2], false),
		gen("fast10-normal-50", 50, math.Log(1/1.10), noises[0], false),
		gen("slow8-ties-40", 40, math.Log(1.08), noises[0], true),
		gen("aa-normal-8", 8, 0, noises[0], false),
		gen("short-5", 5, 0, noises[0], false),
	}
}

func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Judge(goldenRows, %+v)\n", DefaultOptions)
	fmt.Fprintf(&buf, "%-18s %4s %7s %7s %7s %9s %9s %7s %7s %7s %s\n", "row", "n", "ratio", "lo", "hi", "p", "adj p", "±", "mde", "detect", "verdict")
	for _, j := range Judge(goldenRows(), DefaultOptions) {
		e := j.Est
		fmt.Fprintf(&buf, "%-18s %4d %7.4f %7.4f %7.4f %9.3g %9.3g %6.2f%% %6.2f%% %6.2f%% %v\n",
			j.Row.Name, e.N, e.Ratio, e.Lo, e.Hi, e.P, j.AdjP, 100*HalfWidth(e), 100*e.MDE, 100*j.Detectable, j.Verdict)
	}
	r := rand.New(rand.NewPCG(13, 14))
	fmt.Fprintf(&buf, "\n# UnpairedMDE of normal noise (sd 0.1 of log), alpha 0.05/6\n")
	for _, n := range []int{6, 10, 20, 50} {
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i] = math.Exp(0.1 * r.NormFloat64())
			b[i] = math.Exp(0.1 * r.NormFloat64())
		}
		fmt.Fprintf(&buf, "n=%-3d %6.2f%%\n", n, 100*UnpairedMDE(a, b, 0.05/6))
	}
	path := filepath.Join("testdata", "judge.golden")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("golden mismatch (go test -run TestGolden -update to accept):\ngot:\n%s\nwant:\n%s", buf.Bytes(), want)
	}
}
