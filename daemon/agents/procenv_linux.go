//go:build linux

package agents

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// listProcesses reads /proc: each process's argv, folder and start (the
// modification time of its /proc entry). Processes of other users, whose
// folder cannot be read, are left out.
func listProcesses() []process {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		cwd, err := os.Readlink(filepath.Join(dir, "cwd"))
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil || len(cmdline) == 0 {
			continue
		}
		p := process{pid: pid, cwd: cwd, argv: strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")}
		if fi, err := os.Stat(dir); err == nil {
			p.started = fi.ModTime()
		}
		out = append(out, p)
	}
	return out
}

// processEnviron reads /proc/<pid>/environ: the environment the process
// started with (its own later changes are not there, and the agents apply
// their settings' env objects themselves, which compactd reads from the
// settings files).
func processEnviron(pid int) (map[string]string, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return nil, false
	}
	return parseEnviron(data), true
}

// ParentArgs is the command line of this process's parent: the agent, for
// a server it started (compactd mcp); nil when it cannot be read.
func ParentArgs() []string {
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(os.Getppid()), "cmdline"))
	if err != nil || len(cmdline) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
}
