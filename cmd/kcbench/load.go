package main

import "github.com/kcbench/kcbench/cmd/kcbench/internal/cpuload"

// loadLine stops m and describes the machine's other load over its
// measurement, or says why it is not known (err from cpuload.Start, or
// from Stop).
func loadLine(m *cpuload.Meter, err error) string {
	if err == nil {
		var l cpuload.Load
		if l, err = m.Stop(); err == nil {
			return l.String()
		}
	}
	return "other load not measured: " + err.Error()
}
