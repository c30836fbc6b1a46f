package agents

import (
	"path/filepath"
	"sort"
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

// processScanTTL is how long one scan of the running processes serves.
const processScanTTL = 2 * time.Second

// Runs reports whether argv is command's: its program, or the script an
// interpreter runs.
func Runs(argv []string, command string) bool { return runs(argv, command) }

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

// ProcessEnvs finds the environment of the agents' running processes by
// the folder they run in. Reading /proc may block on a process the kernel
// holds (a stalled page fault, an exec in progress), so the scan runs in
// the background and Lookup never waits: it answers from the last scan
// and starts the next when that one is older than processScanTTL.
type ProcessEnvs struct {
	// Commands are the agents' executables to look for.
	Commands []string

	mu      sync.Mutex
	byKey   map[string]map[string]string // command NUL cwd → environment
	argsBy  map[string][]string          // command NUL cwd → command line
	at      time.Time
	running bool
}

// Lookup is the environment of the most recently started process running
// command in folder cwd, as of the last scan; ok is false when none ran
// there or the OS does not tell.
func (p *ProcessEnvs) Lookup(command, cwd string) (map[string]string, bool) {
	if cwd == "" {
		return nil, false
	}
	key := command + "\x00" + canonicalDir(cwd)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.running && time.Since(p.at) >= processScanTTL {
		p.running = true
		go p.scan()
	}
	env, ok := p.byKey[key]
	return env, ok
}

// Args is the command line of the process Lookup finds, as of the last
// scan (Lookup starts the scans).
func (p *ProcessEnvs) Args(command, cwd string) ([]string, bool) {
	if cwd == "" {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	args, ok := p.argsBy[command+"\x00"+canonicalDir(cwd)]
	return args, ok
}

// Wait scans now, giving up after d: what a one-shot command (compactd
// gauge) does before its lookups.
func (p *ProcessEnvs) Wait(d time.Duration) {
	p.mu.Lock()
	p.running = true
	p.mu.Unlock()
	done := make(chan struct{})
	go func() { p.scan(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}

func (p *ProcessEnvs) scan() {
	type found struct {
		pid     int
		argv    []string
		started time.Time
	}
	candidates := map[string][]found{}
	for _, pr := range listProcesses() {
		for _, c := range p.Commands {
			if runs(pr.argv, c) {
				key := c + "\x00" + canonicalDir(pr.cwd)
				candidates[key] = append(candidates[key], found{pr.pid, pr.argv, pr.started})
			}
		}
	}
	byKey := map[string]map[string]string{}
	argsBy := map[string][]string{}
	for key, fs := range candidates {
		// The most recently started whose environment can be read (an
		// agent's process may hide its own, not its launcher's).
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].started.After(fs[j].started) })
		for _, f := range fs {
			if env, ok := processEnviron(f.pid); ok {
				byKey[key], argsBy[key] = env, f.argv
				break
			}
		}
	}
	p.mu.Lock()
	p.byKey, p.argsBy, p.at, p.running = byKey, argsBy, time.Now(), false
	p.mu.Unlock()
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
