//go:build unix

package tokens

import (
	"syscall"
	"time"
)

// processCPUTime is the user and system time the process has used. The
// benchmarks report throughput per CPU second beside wall-clock MB/s: on a
// machine shared with other work the wall clock measures the neighbours.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
