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
	// 	/*0*/ j1, err := LaunchDetached(j0, func(j1 *Job) error {
	// 		/*1*/ stop0 := j1.OnCancel(func() { fired++ })
	// 		/*2*/ j2, err := Async(j1, func(j2 *Job) error {
	// 			/*3*/ err := j2.SupervisorScope(func(j3 *Job) error {
	// 				/*4*/ j3.Shield(func() error {
	// 					/*5*/ j4, err := OpenSupervisor(j3)
	// 					/*6*/ j5, err := Async(j3, func(j5 *Job) error {
	// 						/*7*/ release0, err := j5.Lease()
	// 						/*8*/ release0()
	// 						return nil
	// 					}); Join(j5, j3)
	// 					/*9*/ ok := j3.Cancel(cause0)
	// 					/*10*/ ok := j4.Cancel(cause0)
	// 					return nil
	// 				})
	// 				return nil
	// 			})
	// 			return j2.Check()
	// 		}); Join(j2, j1)
	// 		err := Send(full) // until cancelled
	// 		return err
	// 	}); Ready(j1)
	// 	panic(0)
	// })
	// rt.Close()
	// Run: panic(0) - j1: Cancelled cancelled(closed(*))
	// mismatches: 0 <nil>
}
