package kc

import (
	"testing"
	"unsafe"
)

// A slab is the most jobs that fill the 1024-byte size class with the
// 8-byte malloc header of a pointerful object over 512 bytes (newJob's
// doc), on 64-bit platforms, where a Job is 128 bytes.
func TestSlabFillsSizeClass(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the sizes are those of 64-bit platforms")
	}
	const class, header = 1024, 8
	job := unsafe.Sizeof(Job{})
	jobs := unsafe.Sizeof([slabJobs]Job{})
	if jobs <= 512 || jobs+header > class || jobs+header+job <= class {
		t.Errorf("a slab of %d jobs of %d bytes takes %d bytes with its header; want over 512 without it and the most that fit %d", slabJobs, job, jobs+header, class)
	}
}
