package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/pricing"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/daemon/config"
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
	t, err := readTranscript(in.TranscriptPath)
	if err != nil {
		return "", err
	}
	cfg := loadConfig(e, in.TranscriptPath)
	opts := measureOptions{
		gauge:    gauge.Options{Model: cfg.Gauge.Model, ContextWindow: cfg.Gauge.ContextWindow, Registry: tokens.NewRegistry()},
		counters: tokens.NewCounterSet(),
		prices:   cfg.PriceTable(),
		keepLast: cfg.CompactOptions(0, config.Overrides{}).KeepLastTurns(),
		// Claude Code runs the status line as its child: this
		// environment is the agent's, its settings' env included.
		agent: agentSettingsOf(e),
		path:  in.TranscriptPath,
	}
	// Claude Code knows the model and the window it runs with (the 1M
	// window included); the user's settings still win.
	if opts.gauge.Model == "" {
		opts.gauge.Model = in.Model.ID
	}
	if in.ContextWindow != nil && in.ContextWindow.Size > 0 {
		opts.agentWindow = in.ContextWindow.Size
		if opts.gauge.ContextWindow == 0 {
			opts.gauge.ContextWindow = in.ContextWindow.Size
		}
	}
	f, err := measure(ctx, t, opts)
	if err != nil {
		return "", err
	}
	return statusText(f, color), nil
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
