//go:build race

package model_test

// programsPerBackend is smaller under the race detector, which slows the
// runtimes several times over, to keep the run well under a minute on two
// cores (about 1,000 programs take 2 s per backend there).
const programsPerBackend = 1000
