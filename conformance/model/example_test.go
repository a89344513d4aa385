package model_test

import (
	"fmt"

	"github.com/kcbench/kcbench/conformance/model"
	"github.com/kcbench/kcbench/runtimes"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// A seed gives a program; Model says what a correct runtime observes;
// CheckProgram runs the program on a backend and lists the mismatches.
func Example() {
	p, err := model.Generate(51, model.Config{MaxOps: 8, Exclude: model.KnownOpen})
	if err != nil {
		panic(err)
	}
	fmt.Print(p)
	exp, _ := model.Model(p)
	fmt.Println("Run:", exp.Run, "- j1:", exp.Jobs[1].State, exp.Jobs[1].Result)
	newRT := func() (*kc.Runtime, error) { return runtimes.New("goroutine") }
	ms, err := model.CheckProgram(newRT, p, model.KnownOpen, model.DefaultWatchdog)
	fmt.Println("mismatches:", len(ms), err)
	// Output:
	// // seed 51
	// rt.Run(ctx, func(j0 *Job) error {
	// 	/*0*/ j1, err := Launch(j0, func(j1 *Job) error {
	// 		err := Sleep(1h) // until cancelled
	// 		return err
	// 	})
	// 	/*1*/ ok := j0.Cancel(nil)
	// 	return j0.Check()
	// })
	// rt.Close()
	// Run: cancelled - j1: Cancelled cancelled
	// mismatches: 0 <nil>
}
