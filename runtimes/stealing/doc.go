// Package stealing is the work-stealing backend of kc: tasks run to
// completion on a small set of worker goroutines, scheduled over per-P run
// queues with stealing, in the manner of the Go runtime's own scheduler.
package stealing
