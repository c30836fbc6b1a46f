package main

// The statusline section sets `compactd statusline` beside what people
// use today, ccusage's status line (pinned, installed from npm into a
// cache folder by the section itself, run as its native binary with
// --no-cache so it computes rather than replays its last output), on
// the same sessions: Claude Code runs the command again and again as the
// conversation moves, so what matters is a run after an append. compactd
// keeps the session's state beside its store (daemon/sessionstate) and
// reads only what was appended; each run's output is compared with a
// first run's (a fresh store, no state) on the same file.
//
// The sessions are the shared corpus's real Claude Code sessions scaled
// to 4 MB and 90 MB (corpus.go: copies chained into one conversation,
// new uuids and message ids, texts marked per copy), kept where Claude
// Code keeps them; the appends are Claude Code lines continuing the
// conversation (sessiongen.Continue), about 10 KB each.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() {
	register(section{
		Name:    "statusline",
		Summary: "compactd statusline beside ccusage's (npm, pinned) on 4 MB and 90 MB real Claude Code sessions: first run, and runs after 10 KB appends with the state the previous run left",
		Run:     benchStatusline,
	})
}

// ccusageVersion is the ccusage the issue measured against.
const ccusageVersion = "20.0.24"

// statusRun is one measured run: its output and what it cost.
type statusRun struct {
	out       string
	wall, cpu time.Duration
	rss       int64
}

// measuredRun runs bin with args through the launcher (which times the
// command alone, its own start left out), stdin fed, stdout kept.
func measuredRun(ctx context.Context, env []string, stdin []byte, bin string, args ...string) (statusRun, error) {
	self, err := os.Executable()
	if err != nil {
		return statusRun{}, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return statusRun{}, err
	}
	defer r.Close()
	cmd := exec.CommandContext(ctx, self, append([]string{launchArg, bin}, args...)...)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.ExtraFiles = []*os.File{w}
	runErr := cmd.Start()
	w.Close()
	if runErr == nil {
		runErr = cmd.Wait()
	}
	if runErr != nil {
		return statusRun{}, fmt.Errorf("%s %v: %v: %s", filepath.Base(bin), args, runErr, stderr.String())
	}
	var kb, user, sys, wall int64
	b, _ := io.ReadAll(r)
	if n, _ := fmt.Sscan(string(b), &kb, &user, &sys, &wall); n != 4 {
		return statusRun{}, fmt.Errorf("the launcher reported %q", b)
	}
	return statusRun{out: stdout.String(), wall: time.Duration(wall), cpu: time.Duration(user + sys), rss: kb << 10}, nil
}

// ccusageBinary installs ccusage (pinned) into the bench's cache folder
// unless it is there, and returns its native binary.
func ccusageBinary(ctx context.Context, cfg *config) (string, error) {
	// The e2e tools' cache (make exports it), else the repository's, as
	// the Makefile's default.
	cache := os.Getenv("COMPACTD_E2E_HOME")
	if cache == "" {
		root, err := repoRoot()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(root, ".cache", "e2e")
	}
	dir := filepath.Join(cache, "ccusage-"+ccusageVersion)
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	bin := filepath.Join(dir, "node_modules", "@ccusage", "ccusage-"+runtime.GOOS+"-"+arch, "bin", "ccusage")
	if _, err := os.Stat(bin); err != nil {
		cfg.logf("statusline: installing ccusage %s into %s", ccusageVersion, dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", "--no-package-lock", "ccusage@"+ccusageVersion)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("npm install ccusage@%s: %w\n%s", ccusageVersion, err, out)
		}
	}
	// npm leaves the native binary without its execute bit (ccusage's
	// launcher script sets it on its first run).
	if err := os.Chmod(bin, 0o755); err != nil {
		return "", fmt.Errorf("ccusage %s has no native binary for %s/%s: %w", ccusageVersion, runtime.GOOS, runtime.GOARCH, err)
	}
	return bin, nil
}

// statusPayload is Claude Code's status line payload for the session at
// path, as Claude Code 2.1 sends it (ccusage reads every field).
func statusPayload(path, session string) ([]byte, error) {
	p := map[string]any{
		"hook_event_name": "Status", "session_id": session, "transcript_path": path, "cwd": "/home/dev/src/proj",
		"model":     map[string]any{"id": "claude-sonnet-4-5-20250929", "display_name": "Sonnet 4.5"},
		"workspace": map[string]any{"current_dir": "/home/dev/src/proj", "project_dir": "/home/dev/src/proj"},
		"version":   "2.1.92", "output_style": map[string]any{"name": "default"},
		"cost": map[string]any{"total_cost_usd": 0.14, "total_duration_ms": 138000, "total_api_duration_ms": 41230,
			"total_lines_added": 0, "total_lines_removed": 0},
		"context_window": map[string]any{"total_input_tokens": 388424, "total_output_tokens": 757, "context_window_size": 200000,
			"used_percentage": 97, "remaining_percentage": 3,
			"current_usage": map[string]any{"input_tokens": 3, "output_tokens": 600, "cache_creation_input_tokens": 1250, "cache_read_input_tokens": 192938}},
		"exceeds_200k_tokens": false,
	}
	return json.Marshal(p)
}

// statusEnv is the environment of the section's runs: a home of its own
// (Claude Code's folder in it, where ccusage reads), and the store.
func statusEnv(home, storePath string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COMPACTD_STORE", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "COMPACTD_STORE="+storePath)
}

func medianOf(runs []statusRun) statusRun {
	var wall, cpu []time.Duration
	var rss int64
	for _, r := range runs {
		wall, cpu, rss = append(wall, r.wall), append(cpu, r.cpu), max(rss, r.rss)
	}
	return statusRun{wall: median(wall), cpu: median(cpu), rss: rss}
}

func (r statusRun) figure() string {
	return fmt.Sprintf("%s wall, %s CPU, %d MB", ms(r.wall), ms(r.cpu), r.rss>>20)
}

func benchStatusline(ctx context.Context, cfg *config) ([]row, error) {
	bin, err := serverBinary(ctx, cfg)
	if err != nil {
		return nil, err
	}
	ccusage, err := ccusageBinary(ctx, cfg)
	if err != nil {
		return nil, err
	}
	type size struct {
		name          string
		bytes         int
		firstRuns     int
		firstCPUToday time.Duration // the figure for today's first run
	}
	sizes := []size{{"4 MB", 4 << 20, 5, 171 * time.Millisecond}, {"90 MB", 90 << 20, 3, 1120 * time.Millisecond}}
	appends := 5
	if cfg.Quick {
		sizes, appends = []size{{"4 MB", 4 << 20, 3, 171 * time.Millisecond}, {"20 MB", 20 << 20, 1, 0}}, 3
	}
	root := filepath.Join(cfg.TempDir, "statusline")
	defer os.RemoveAll(root)
	home := filepath.Join(root, "home")
	proj := filepath.Join(home, ".claude", "projects", "-home-dev-src-proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		return nil, err
	}
	var rows []row
	for _, sz := range sizes {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		data, ok, err := realSession(sz.bytes, "/home/dev/src/proj")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errors.New("the shared corpus (../shared/corpus) is missing: the status line is measured on real sessions")
		}
		session := sessionOf(data)
		path := filepath.Join(proj, session+".jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, err
		}
		payload, err := statusPayload(path, session)
		if err != nil {
			return nil, err
		}
		cfg.logf("statusline: %s session at %s", sz.name, path)
		load0 := loadAverage()
		stateStore := filepath.Join(root, "store-"+sz.name, "compactd.db")
		fresh := 0
		firstRun := func() (statusRun, error) {
			fresh++
			return measuredRun(ctx, statusEnv(home, filepath.Join(root, fmt.Sprintf("fresh-%d", fresh), "compactd.db")), payload, bin, "statusline")
		}
		var ccu, first []statusRun
		for range sz.firstRuns {
			r, err := measuredRun(ctx, statusEnv(home, stateStore), payload, ccusage, "statusline", "--no-cache")
			if err != nil {
				return nil, err
			}
			ccu = append(ccu, r)
			if r, err = firstRun(); err != nil {
				return nil, err
			}
			first = append(first, r)
		}
		// The first run with the state's store leaves the state.
		if _, err := measuredRun(ctx, statusEnv(home, stateStore), payload, bin, "statusline"); err != nil {
			return nil, err
		}
		var after, ccuAfter []statusRun
		equal, appended := true, 0
		for i := range appends {
			grown, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			// Whole lines of the conversation's next turns, the first
			// 10 KB of them: what Claude Code writes between two runs.
			var add []byte
			for _, l := range bytes.SplitAfter(sessiongen.Continue(transcript.FormatClaudeCode, grown, uint64(100+i), 40), []byte("\n")) {
				if len(add) >= 10<<10 {
					break
				}
				add = append(add, l...)
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return nil, err
			}
			_, werr := f.Write(add)
			if err := errors.Join(werr, f.Close()); err != nil {
				return nil, err
			}
			appended += len(add)
			r, err := measuredRun(ctx, statusEnv(home, stateStore), payload, bin, "statusline")
			if err != nil {
				return nil, err
			}
			after = append(after, r)
			scratch, err := firstRun()
			if err != nil {
				return nil, err
			}
			if r.out != scratch.out {
				equal = false
				cfg.logf("statusline: %s, append %d: with the state %q, a first run %q", sz.name, i+1, r.out, scratch.out)
			}
			c, err := measuredRun(ctx, statusEnv(home, stateStore), payload, ccusage, "statusline", "--no-cache")
			if err != nil {
				return nil, err
			}
			ccuAfter = append(ccuAfter, c)
			cfg.logf("statusline: %s, append %d (%d bytes): compactd %s, ccusage %s", sz.name, i+1, len(add), r.figure(), c.figure())
		}
		os.Remove(path)
		a, c, f0, c0 := medianOf(after), medianOf(ccuAfter), medianOf(first), medianOf(ccu)
		ratio := float64(c.wall) / float64(max(a.wall, time.Microsecond))
		rows = append(rows,
			row{Name: fmt.Sprintf("%s session: compactd statusline after a 10 KB append, with its state (median of %d appends, %d bytes in all)", sz.name, appends, appended),
				Value: ms(a.wall), Anchor: "≤ 20 ms", Pass: a.wall <= 20*time.Millisecond},
			row{Name: fmt.Sprintf("%s session: ccusage %s statusline --no-cache after the same appends ÷ compactd's (wall)", sz.name, ccusageVersion),
				Value: fmt.Sprintf("%.1f×", ratio), Anchor: "≥ 10×", Pass: ratio >= 10},
			row{Name: fmt.Sprintf("%s session: compactd statusline's output after each append equals a first run's (a fresh store) on the same file", sz.name),
				Value: fmt.Sprint(equal), Anchor: "equal", Pass: equal},
		)
		if sz.firstCPUToday > 0 {
			// The figure is the status line before it kept a
			// state, on a quiet machine: a loaded one's CPU time is
			// higher for every command, so this row informs.
			rows = append(rows, row{Name: fmt.Sprintf("%s session: compactd statusline's first run (no state), CPU time (median of %d; the issue measured %s before the state, on a quiet machine)", sz.name, sz.firstRuns, ms(sz.firstCPUToday)),
				Value: ms(f0.cpu)})
		}
		rows = append(rows,
			row{Name: fmt.Sprintf("%s session: compactd statusline after an append, with its state", sz.name), Value: a.figure()},
			row{Name: fmt.Sprintf("%s session: ccusage statusline --no-cache after an append", sz.name), Value: c.figure()},
			row{Name: fmt.Sprintf("%s session: compactd statusline, first run (no state; median of %d)", sz.name, sz.firstRuns), Value: f0.figure()},
			row{Name: fmt.Sprintf("%s session: ccusage statusline --no-cache (median of %d)", sz.name, sz.firstRuns), Value: c0.figure()},
			row{Name: fmt.Sprintf("%s session: machine load average (1 min) at start → end", sz.name), Value: load0 + " → " + loadAverage()},
		)
	}
	return rows, nil
}
