package agents

import (
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The environment an agent runs with decides some of its settings
// (CLAUDE_AUTOCOMPACT_PCT_OVERRIDE, …), and it is often not the daemon's:
// the editor that started compactd was not started from the shell that
// started the agent. Where the OS lets a process read another of the same
// user's environment (Linux: /proc/<pid>/environ), compactd reads the
// running agent's own; elsewhere, and when no agent runs in the folder,
// the caller falls back on its own environment.

// A process is one running program as the scan saw it.
type process struct {
	pid     int
	argv    []string
	cwd     string
	started time.Time
}

// processScan caches the list of processes for a moment: thresholds of
// many sessions are computed together (the cold scan), and one scan serves
// them all.
var processScan struct {
	mu   sync.Mutex
	at   time.Time
	list []process
}

// processScanTTL is how long one scan of the running processes serves.
const processScanTTL = 2 * time.Second

func runningProcesses() []process {
	processScan.mu.Lock()
	defer processScan.mu.Unlock()
	if time.Since(processScan.at) < processScanTTL && processScan.at != (time.Time{}) {
		return processScan.list
	}
	processScan.list, processScan.at = listProcesses(), time.Now()
	return processScan.list
}

// runs reports whether argv is command: its program, or the script an
// interpreter runs (node …/bin/claude, bun …/codex.js).
func runs(argv []string, command string) bool {
	if len(argv) == 0 || command == "" {
		return false
	}
	base := func(s string) string {
		b := filepath.Base(s)
		return strings.TrimSuffix(b, filepath.Ext(b))
	}
	if base(argv[0]) == command {
		return true
	}
	switch base(argv[0]) {
	case "node", "bun", "deno":
		return len(argv) > 1 && (base(argv[1]) == command || strings.Contains(argv[1], string(filepath.Separator)+command+string(filepath.Separator)))
	}
	return false
}

// ProcessEnv is the environment of the most recently started process
// running command in folder cwd, when compactd may read it; ok is false
// when none runs there or the OS does not tell.
func ProcessEnv(command, cwd string) (env map[string]string, ok bool) {
	if cwd == "" {
		return nil, false
	}
	want := canonicalDir(cwd)
	var best *process
	list := runningProcesses()
	for i, p := range list {
		if !runs(p.argv, command) || canonicalDir(p.cwd) != want {
			continue
		}
		if best == nil || p.started.After(best.started) {
			best = &list[i]
		}
	}
	if best == nil {
		return nil, false
	}
	return processEnviron(best.pid)
}

func canonicalDir(d string) string {
	if r, err := filepath.EvalSymlinks(d); err == nil {
		return r
	}
	return filepath.Clean(d)
}

// parseEnviron splits NUL-separated KEY=VALUE pairs.
func parseEnviron(data []byte) map[string]string {
	env := map[string]string{}
	for _, kv := range strings.Split(string(data), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			env[k] = v
		}
	}
	return env
}
