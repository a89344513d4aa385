//go:build !race

package model_test

// programsPerBackend is how many programs TestBackends checks on each
// backend: at least 1,000 in the plain test run.
const programsPerBackend = 3000
