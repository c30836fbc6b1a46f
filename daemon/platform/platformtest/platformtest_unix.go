//go:build !windows

package platformtest

import (
	"os"
	"syscall"
	"time"
)

// Mkfifo makes a named pipe (FIFO) at path.
func Mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// Signal sends the termination or interrupt signal to p.
func Signal(p *os.Process, sig os.Signal) error { return p.Signal(sig) }

// SignalsSupported reports whether processes can be sent SIGTERM/SIGINT.
const SignalsSupported = true

// PeakRSS is the peak resident memory of an exited process, in bytes.
func PeakRSS(st *os.ProcessState) (int64, bool) {
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return maxrssBytes(ru.Maxrss), true
}

// CPUTime is the user and system time this process has used.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
