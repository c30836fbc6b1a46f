package main

// The cli section measures the commands a user types on a large Claude
// Code session, end to end through the built binary: `compactd compact`
// (the fork written, the source and the result recorded in a fresh
// store), its dry run, and `compactd gauge`.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() {
	register(section{
		Name:    "cli",
		Summary: "compactd compact (fork and versions stored), its dry run and compactd gauge of a 100 MB Claude Code session, end to end",
		Run:     benchCLI,
	})
}

// compactJSON is the part of `compact --json` the bench reads.
type compactJSON struct {
	TokensBefore int    `json:"tokensBefore"`
	TokensAfter  int    `json:"tokensAfter"`
	ForkPath     string `json:"forkPath"`
	Retention    struct {
		Score float64 `json:"score"`
		Kept  int     `json:"kept"`
		Total int     `json:"total"`
	} `json:"retention"`
}

func runJSON(ctx context.Context, bin string, env []string, out any, args ...string) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("compactd %v: %v: %s", args, err, stderr.String())
	}
	return json.Unmarshal(stdout.Bytes(), out)
}

func benchCLI(ctx context.Context, cfg *config) ([]row, error) {
	bin, err := serverBinary(ctx, cfg)
	if err != nil {
		return nil, err
	}
	size, sizeName, runs := 100<<20, "100 MB", 3
	if cfg.Quick {
		size, sizeName, runs = 20<<20, "20 MB", 1
	}
	dir := filepath.Join(cfg.TempDir, "cli", "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(filepath.Join(cfg.TempDir, "cli"))
	src, data, err := benchSession(size, 3, dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		return nil, err
	}
	more := sessiongen.Continue(transcript.FormatClaudeCode, src, 4, 400)
	src = nil
	cfg.logf("cli: %s session (%s) at %s", sizeName, data, path)

	// Each compaction starts from a fresh store: the first compaction of
	// a session records its whole source, the costliest case.
	type figure struct{ wall, cpu []time.Duration }
	var compact, dry, gaugeF figure
	var peak int64
	var rep, window compactJSON
	for i := 0; i < runs; i++ {
		storeDir := filepath.Join(cfg.TempDir, "cli", fmt.Sprintf("store-%d", i))
		env := serverEnv(cfg, filepath.Join(storeDir, "compactd.db"))
		wall, cpu, rss, err := cliFigure(ctx, bin, env, true, "gauge", path)
		if err != nil {
			return nil, err
		}
		gaugeF.wall, gaugeF.cpu, peak = append(gaugeF.wall, wall), append(gaugeF.cpu, cpu), max(peak, rss)
		if wall, cpu, rss, err = cliFigure(ctx, bin, env, true, "compact", "--dry-run", path); err != nil {
			return nil, err
		}
		dry.wall, dry.cpu, peak = append(dry.wall, wall), append(dry.cpu, cpu), max(peak, rss)
		if wall, cpu, rss, err = cliFigure(ctx, bin, env, true, "compact", path); err != nil {
			return nil, err
		}
		compact.wall, compact.cpu, peak = append(compact.wall, wall), append(compact.cpu, cpu), max(peak, rss)
		cfg.logf("cli: run %d: gauge %v, dry run %v, compact %v (CPU %v)", i+1, gaugeF.wall[i].Round(time.Millisecond), dry.wall[i].Round(time.Millisecond), compact.wall[i].Round(time.Millisecond), compact.cpu[i].Round(time.Millisecond))
		if i < runs-1 {
			os.RemoveAll(storeDir)
		}
	}
	// Forks written by the timed runs.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != filepath.Base(path) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}

	// What the dry run reports, and the same budget spent on the newest
	// turns (token-budget keeps half the window: a window twice auto's
	// result), to compare the facts each keeps.
	env := serverEnv(cfg, filepath.Join(cfg.TempDir, "cli", "store-json", "compactd.db"))
	if err := runJSON(ctx, bin, env, &rep, "compact", "--dry-run", "--json", path); err != nil {
		return nil, err
	}
	if err := runJSON(ctx, bin, env, &window, "compact", "--dry-run", "--json", "--strategy", "token-budget", "--window", fmt.Sprint(2*rep.TokensAfter), path); err != nil {
		return nil, err
	}

	// The session grew; compacting again records only what it added.
	storeDir := filepath.Join(cfg.TempDir, "cli", fmt.Sprintf("store-%d", runs-1))
	env = serverEnv(cfg, filepath.Join(storeDir, "compactd.db"))
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	f.Write(more)
	f.Close()
	again, _, _, err := cliFigure(ctx, bin, env, true, "compact", path)
	if err != nil {
		return nil, err
	}

	saved := 0.0
	if rep.TokensBefore > 0 {
		saved = float64(rep.TokensBefore-rep.TokensAfter) / float64(rep.TokensBefore)
	}
	cw, dw, gw := median(compact.wall), median(dry.wall), median(gaugeF.wall)
	return []row{
		{Name: fmt.Sprintf("compactd compact, %s Claude Code session (%s), end to end: fork written, source and result stored in a fresh store (median of %d)", sizeName, data, runs),
			Value: seconds(cw), Anchor: "≤ 1.5 s", Pass: cw <= 1500*time.Millisecond},
		{Name: fmt.Sprintf("compactd compact --dry-run, %s session (median of %d)", sizeName, runs), Value: seconds(dw), Anchor: "≤ 1 s", Pass: dw <= time.Second},
		{Name: fmt.Sprintf("compactd gauge, %s session (median of %d)", sizeName, runs), Value: seconds(gw), Anchor: "≤ 0.5 s", Pass: gw <= 500*time.Millisecond},
		{Name: "tokens auto saves (compactd compact --dry-run --json)", Value: fmt.Sprintf("%.1f %% (%s → %s)", 100*saved, tokens.Thousands(rep.TokensBefore), tokens.Thousands(rep.TokensAfter)), Anchor: "≥ 60 %", Pass: saved >= 0.6},
		{Name: fmt.Sprintf("key facts kept at %s tokens: auto vs the newest turns that fit (token-budget)", tokens.Thousands(rep.TokensAfter)),
			Value:  fmt.Sprintf("%.1f %% vs %.1f %% (%d vs %d of %d)", 100*rep.Retention.Score, 100*window.Retention.Score, rep.Retention.Kept, window.Retention.Kept, rep.Retention.Total),
			Anchor: "auto > window", Pass: rep.Retention.Score > window.Retention.Score},
		{Name: "compactd compact CPU time (median)", Value: seconds(median(compact.cpu))},
		{Name: "compactd compact --dry-run CPU time (median)", Value: seconds(median(dry.cpu))},
		{Name: "compactd gauge CPU time (median)", Value: seconds(median(gaugeF.cpu))},
		{Name: "peak RSS of these commands", Value: fmt.Sprintf("%d MB", peak>>20), Anchor: "≤ 300 MB", Pass: peak <= 300<<20},
		{Name: fmt.Sprintf("compactd compact again after the session grew %d KB (the store has its earlier read)", len(more)>>10), Value: seconds(again)},
	}, nil
}
