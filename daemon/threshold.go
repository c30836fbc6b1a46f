package daemon

import (
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
)

// thresholdRecheck is how often a cached threshold's settings files are
// checked for changes: a snapshot is built on every append, and reading
// an agent's five settings files each time would cost more than the
// append.
const thresholdRecheck = time.Second

// thresholds caches each session's auto-compaction point by what it
// depends on, and reads the agent's settings again only when one of the
// files it read (or found missing) changed.
type thresholds struct {
	env    agents.Env
	getenv func(string) string
	now    func() time.Time
	// processEnv finds the environment of the agent's process running in
	// a folder (agents.ProcessEnv); nil reads none.
	processEnv func(command, cwd string) (map[string]string, bool)
	// processArgs finds that process's command line (its flags may
	// choose settings); nil reads none.
	processArgs func(command, cwd string) ([]string, bool)

	mu sync.Mutex
	m  map[thresholdKey]*thresholdEntry
	// lastEnv and lastArgs are the last process environment and command
	// line seen per agent and folder.
	lastEnv  map[string]map[string]string
	lastArgs map[string][]string
}

type thresholdKey struct {
	agent, cwd, model, windowSource, version string
	window                                   int
}

type thresholdEntry struct {
	value   *gauge.AutoCompact
	files   map[string]fileStamp
	env     map[string]string // the agent's process environment it was computed with; nil: the daemon's
	args    []string          // the agent's command line it was computed with
	checked time.Time
}

// fileStamp is what a settings file was when read; a missing file has the
// zero stamp.
type fileStamp struct {
	size int64
	mod  time.Time
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{fi.Size(), fi.ModTime()}
}

// of returns the agent's threshold for the session at path, t resolved as
// r (in folder when it does not say where it runs), nil when compactd does not read that agent's
// settings.
func (th *thresholds) of(path string, t *transcript.Transcript, r gauge.Resolved, folder string) *gauge.AutoCompact {
	a := agents.ByFormat(t.Format)
	if a == nil || a.Threshold == nil {
		return nil
	}
	cwd := a.SessionCwd(th.env, path, t.Meta.Cwd)
	if cwd == "" {
		cwd = folder
	}
	key := thresholdKey{agent: a.Name, cwd: cwd, model: r.Model, window: r.ContextWindow, windowSource: r.WindowSource, version: t.Meta.AgentVersion}
	now := th.now()
	th.mu.Lock()
	e := th.m[key]
	if e != nil && now.Sub(e.checked) < thresholdRecheck {
		th.mu.Unlock()
		return e.value
	}
	th.mu.Unlock()
	env, args := th.agentEnv(a, cwd)
	if e != nil && !changed(e.files) && maps.Equal(e.env, env) && slices.Equal(e.args, args) {
		th.mu.Lock()
		e.checked = now
		th.mu.Unlock()
		return e.value
	}
	getenv := th.getenv
	if env != nil {
		getenv = func(k string) string { return env[k] }
	}
	files := map[string]fileStamp{}
	var mu sync.Mutex
	q := agents.Query{Env: th.env, Getenv: getenv, Args: args, Cwd: cwd, Model: r.Model, Window: r.ContextWindow, WindowSource: r.WindowSource, AgentVersion: t.Meta.AgentVersion,
		ReadFile: func(path string) ([]byte, error) {
			mu.Lock()
			files[path] = stampOf(path)
			mu.Unlock()
			return os.ReadFile(path)
		}}
	value := a.AutoCompact(q)
	th.mu.Lock()
	if th.m == nil {
		th.m = map[thresholdKey]*thresholdEntry{}
	}
	if len(th.m) > 4096 { // sessions of many models and folders: start over
		clear(th.m)
	}
	th.m[key] = &thresholdEntry{value: value, files: files, env: env, args: args, checked: now}
	th.mu.Unlock()
	return value
}

// agentEnv is the environment and command line of the agent's process
// running in cwd, or the last ones seen there once it exited (the session
// ran with them); nil when none was ever seen: the daemon's environment
// applies.
func (th *thresholds) agentEnv(a *agents.Agent, cwd string) (map[string]string, []string) {
	if th.processEnv == nil {
		return nil, nil
	}
	key := a.Name + "\x00" + cwd
	env, ok := th.processEnv(a.Command, cwd)
	var args []string
	if ok && th.processArgs != nil {
		args, _ = th.processArgs(a.Command, cwd)
	}
	th.mu.Lock()
	defer th.mu.Unlock()
	if ok {
		if th.lastEnv == nil {
			th.lastEnv, th.lastArgs = map[string]map[string]string{}, map[string][]string{}
		}
		th.lastEnv[key], th.lastArgs[key] = env, args
		return env, args
	}
	return th.lastEnv[key], th.lastArgs[key]
}

// changed reports whether any file differs from its stamp.
func changed(files map[string]fileStamp) bool {
	for path, st := range files {
		if stampOf(path) != st {
			return true
		}
	}
	return false
}
