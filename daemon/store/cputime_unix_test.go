//go:build unix

package store

import (
	"syscall"
	"time"
)

// processCPUTime is the user and system time the process has used: unlike
// the wall clock it does not grow when other work shares the machine, so
// a bound on it guards complexity without flaking under load.
func processCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
