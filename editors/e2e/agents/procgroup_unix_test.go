//go:build unix

package agents

import (
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own and, when its context ends,
// kills the whole group. Agents run in more than one process (Gemini CLI and
// Qwen Code relaunch themselves in a second Node, Kilo Code's and opencode's
// Node wrappers run their binaries): killing the first process alone left the
// others running, orphaned, spinning a core for the rest of the suite.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
