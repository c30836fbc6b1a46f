//go:build windows

package platformtest

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// Mkfifo fails: Windows has no named pipes in the file system.
func Mkfifo(path string) error {
	return fmt.Errorf("named pipe %s: %w (Windows has no FIFOs in the file system)", path, ErrUnsupported)
}

// Signal fails: Windows has no signals to send another process (only
// console control events, to a process sharing our console).
func Signal(p *os.Process, sig os.Signal) error {
	return fmt.Errorf("send %v: %w (Windows has no signals)", sig, ErrUnsupported)
}

// SignalsSupported reports whether processes can be sent SIGTERM/SIGINT.
const SignalsSupported = false

// PeakRSS is unknown on Windows once the process has exited.
func PeakRSS(st *os.ProcessState) (int64, bool) { return 0, false }

// CPUTime is the user and system time this process has used.
func CPUTime() time.Duration {
	var creation, exit, kernel, user windows.Filetime
	windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user)
	// Filetime counts 100 ns intervals.
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
