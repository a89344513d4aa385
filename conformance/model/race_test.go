//go:build race

package model_test

// programsPerBackend is smaller under the race detector, which slows the
// runtimes several times over, to keep the run well under a minute.
const programsPerBackend = 300
