package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"strings"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/index"
	"github.com/compactd/compactd/daemon/sessionstate"
	"github.com/compactd/compactd/lsp"
	"github.com/vmihailenco/msgpack/v5"
)

func init() {
	register(&command{
		name:    "statusline",
		summary: "one status line for Claude Code: gauge, what fills the window, cost (reads its statusline JSON on stdin)",
		run:     runStatusline,
	})
}

// statusInput is the part of Claude Code's statusline payload compactd
// reads. The whole payload (hook_event_name "Status", session_id,
// transcript_path, cwd, model {id, display_name}, workspace, version,
// output_style, cost {total_cost_usd, …}, context_window
// {context_window_size, current_usage, used_percentage, …},
// exceeds_200k_tokens) is documented with Claude Code's status line.
type statusInput struct {
	TranscriptPath string `json:"transcript_path"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	ContextWindow *struct {
		Size int `json:"context_window_size"`
	} `json:"context_window"`
}

// maxStatusInput bounds what is read from stdin: the payload is a few
// hundred bytes.
const maxStatusInput = 1 << 20

// runStatusline prints one line. Claude Code shows the first line of
// stdout and blanks the status line when the command fails, so problems
// are reported on that line (and stderr), with exit status 0, except for
// wrong usage.
func runStatusline(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("statusline", e)
	color := fs.Bool("color", false, "color the gauge by level (ANSI)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("usage: compactd statusline [--color] < payload.json (Claude Code's statusLine command)")
	}
	line, err := statusline(ctx, e, *color)
	if err != nil {
		fmt.Fprintf(e.stderr, "compactd statusline: %v\n", err)
		line = "compactd: " + err.Error()
	}
	fmt.Fprintln(e.stdout, line)
	return nil
}

func statusline(ctx context.Context, e *env, color bool) (string, error) {
	raw, err := io.ReadAll(io.LimitReader(e.stdin, maxStatusInput+1))
	if err != nil {
		return "", fmt.Errorf("read the statusline JSON on stdin: %w", err)
	}
	if len(raw) > maxStatusInput {
		return "", errors.New("the statusline JSON on stdin is larger than 1 MiB; is this Claude Code's statusLine payload?")
	}
	var in statusInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return "", fmt.Errorf("stdin is not Claude Code's statusline JSON (%v); set compactd statusline as the statusLine command", err)
	}
	if in.TranscriptPath == "" {
		return "compactd: no transcript yet", nil
	}
	f, err := statusFigures(e, in)
	if err != nil {
		return "", err
	}
	return statusText(f, color), nil
}

// statusFigures are the transcript's figures, read from where the
// previous run left it: the session's state (daemon/sessionstate) beside
// the store, so a run after an append reads what was appended, not the
// whole transcript. They are the daemon's figures (its index and
// snapshot), equal to a first run's whatever the state.
func statusFigures(e *env, in statusInput) (*figures, error) {
	path := in.TranscriptPath
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist", path)
	} else if err != nil {
		return nil, err // it names the path and what failed
	}
	cfg := *loadConfig(e, path)
	// Claude Code knows the model and the window it runs with (the 1M
	// window included); the user's settings still win.
	if cfg.Gauge.Model == "" {
		cfg.Gauge.Model = in.Model.ID
	}
	agentWindow := 0
	if in.ContextWindow != nil && in.ContextWindow.Size > 0 {
		agentWindow = in.ContextWindow.Size
		if cfg.Gauge.ContextWindow == 0 {
			cfg.Gauge.ContextWindow = agentWindow
		}
	}
	set := index.NewSettings(&cfg)
	// Claude Code runs the status line as its child: this environment is
	// the agent's, its settings' env included.
	agent := agentSettingsOf(e)
	registry := tokens.NewRegistry()
	opts := index.Options{
		Settings: func(string) *index.Settings { return set },
		// The agent computes its point from the model's window as it
		// knows it (the payload says which), not from a window
		// compactd's settings impose.
		Threshold: func(path string, t *transcript.Transcript, _ gauge.Resolved) *gauge.AutoCompact {
			return agent.threshold(path, t, gauge.Resolve(t, gauge.Options{Model: cfg.Gauge.Model, ContextWindow: agentWindow, Registry: registry}))
		},
		// Trimmed from the start: a status line keeps what appends need.
		HotBytes: 1,
		Named:    true,
	}
	key, err := stateKey(&cfg, agentWindow, "statusline")
	if err != nil {
		return nil, err
	}
	dir := ""
	if storePath, err := resolveStore(e, ""); err == nil {
		dir = sessionstate.Dir(storePath)
	}
	sess, err := sessionstate.Open(dir, path, key, opts)
	if err != nil {
		return nil, err
	}
	if sess.Resumed && sess.Pending() < statusNoGC {
		// What the run allocates is the state and what was appended, and
		// the process ends with the line: collecting (scanning the state's
		// few MB of placeholders) is all the cost it would add.
		debug.SetGCPercent(-1)
	}
	snap, err := sess.Snapshot()
	if err != nil {
		if errors.Is(err, index.ErrNotTranscript) {
			return nil, &usageError{err.Error()}
		}
		return nil, err
	}
	if dir != "" && !(sess.Resumed && sess.BytesRead() == 0) {
		if err := sess.Save(); err != nil {
			fmt.Fprintf(e.stderr, "compactd statusline: keep the session's state: %v\n", err)
		}
	}
	return snapshotFigures(snap), nil
}

// statusNoGC is the most bytes a resumed status line reads with the
// garbage collector off.
const statusNoGC = 16 << 20

// stateKey names what the figures depend on beside the transcript: the
// settings, the agent's window, and this build of compactd (a state from
// another build is not read).
//
// The settings are written as MessagePack (maps in key order, pointers by
// what they point to), not JSON: encoding/json's first use of the
// settings' types was 4 % of a status line's run.
func stateKey(cfg *config.Config, agentWindow int, command string) (string, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(cfg); err != nil {
		return "", err
	}
	b := buf.Bytes()
	build := lsp.Version
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			build += fmt.Sprintf(" %d %d", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	sum := sha256.Sum256(fmt.Appendf(b, " window=%d build=%s %s", agentWindow, build, command))
	return hex.EncodeToString(sum[:]), nil
}

// snapshotFigures are a snapshot's figures as the status line shows them.
func snapshotFigures(s *index.Snapshot) *figures {
	f := &figures{gauge: s.Gauge, cost: s.Insight.Cost, price: s.Insight.Price, lastResponse: s.Insight.LastResponse}
	if s.Insight.Breakdown != nil {
		f.breakdown = *s.Insight.Breakdown
	}
	return f
}

// statusText is the line:
//
//	195k / 200k · 97 % critical │ outside 192k · assistant 1.8k · tool results 1.4k │ $0.14 so far · next turn $0.058 │ compaction can't help: 98 % is outside the transcript
func statusText(f *figures, color bool) string {
	g, b := f.gauge, f.breakdown
	head := fmt.Sprintf("%s / %s · %d %%", shortTokens(g.Tokens), shortTokens(g.ContextWindow), int(100*g.Ratio+0.5))
	if g.Level != gauge.LevelOK {
		head += " " + string(g.Level)
	}
	if color {
		code := map[gauge.Level]string{gauge.LevelOK: "32", gauge.LevelWarn: "33", gauge.LevelCritical: "31"}[g.Level]
		head = "\x1b[" + code + "m" + head + "\x1b[0m"
	}
	parts := []string{head}
	if m := g.Mark(); m != nil {
		parts = append(parts, markNote(m))
	}
	if brief := b.Brief(3); brief != "" {
		parts = append(parts, brief)
	}
	if f.cost != nil {
		cost := []string{}
		if f.cost.Responses > 0 {
			cost = append(cost, pricing.Dollars(f.cost.Session)+" so far")
		}
		cost = append(cost, "next turn "+pricing.Dollars(f.cost.NextTurn.Cached))
		parts = append(parts, strings.Join(cost, " · "))
	}
	if b.OutsideDominates() {
		parts = append(parts, fmt.Sprintf("compaction can't help: %d %% is outside the transcript", int(100*float64(b.Outside.Tokens)/float64(b.Tokens)+0.5)))
	} else if g.Level != gauge.LevelOK {
		parts = append(parts, fmt.Sprintf("compaction can reach %s", shortTokens(max(b.Reachable, 0))))
	}
	return strings.Join(parts, " │ ")
}

// shortTokens renders a count as status bars do: 950, 1.2k, 156k, 1.05M.
func shortTokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	case n < 1_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	default:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", float64(n)/1e6), "0"), ".") + "M"
	}
}
