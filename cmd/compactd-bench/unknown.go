package main

// The unknown section: an agent's session with a real head followed by a
// million tiny records of a type the agent never writes (`{"a":N}`, 13
// MB), as a script, a newer agent or a broken writer might leave — beside
// the hostile section's million identical lines. Such records were a
// million records, nodes, problems and stored segments: compact took
// 40 s and 942 MB. Measured as a user meets them: `compactd compact`,
// `compactd gauge`, and the server indexing the file in its workspace.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

func init() {
	register(section{
		Name:    "unknown",
		Summary: "a real head (Claude Code, Codex, Gemini CLI, Qwen Code) + 1,000,000 unknown records {\"a\":N} (13 MB): compact, gauge, server indexing — time and peak RSS",
		Run:     benchUnknown,
	})
}

// unknownHeads are the real sessions the records follow: the repository's
// fixtures (each written by the agent), the shared corpus's for Claude
// Code when it is there.
var unknownHeads = []struct{ agent, corpus, fixture string }{
	{"Claude Code", "claude-code/real-v1.0.51-tools-summary.jsonl", "cmd/compactd/testdata/gauge/claude-session.jsonl"},
	{"Codex", "", "daemon/index/testdata/codex-v0.169-rollout.jsonl"},
	{"Gemini CLI", "", "daemon/jobs/testdata/gemini-v0.61-session.jsonl"},
	{"Qwen Code", "", "compaction/format/qwen/testdata/session.jsonl"},
}

func benchUnknown(ctx context.Context, cfg *config) ([]row, error) {
	bin, err := serverBinary(ctx, cfg)
	if err != nil {
		return nil, err
	}
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	heads := unknownHeads
	if cfg.Quick {
		heads = heads[:1]
	}
	var rows []row
	for i, h := range heads {
		headPath := filepath.Join(root, h.fixture)
		if dir := corpusDir(); dir != "" && h.corpus != "" {
			headPath = filepath.Join(dir, h.corpus)
		}
		head, err := os.ReadFile(headPath)
		if err != nil {
			return nil, err
		}
		ws := filepath.Join(cfg.TempDir, "unknown", strconv.Itoa(i))
		if err := os.MkdirAll(ws, 0o755); err != nil {
			return nil, err
		}
		path := filepath.Join(ws, "session.jsonl")
		var b bytes.Buffer
		b.Write(head)
		if !bytes.HasSuffix(head, []byte("\n")) {
			b.WriteByte('\n')
		}
		for n := 0; n < 1_000_000; n++ {
			b.WriteString(`{"a":`)
			b.WriteString(strconv.Itoa(n))
			b.WriteString("}\n")
		}
		if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
			return nil, err
		}
		what := fmt.Sprintf("%s head + 1,000,000 unknown records (%d MB)", h.agent, b.Len()>>20)
		cfg.logf("unknown: %s", what)
		b = bytes.Buffer{}
		env := serverEnv(cfg, filepath.Join(cfg.TempDir, "unknown-store", strconv.Itoa(i), "compactd.db"))
		runs := 3
		if cfg.Quick {
			runs = 1
		}
		for _, cmd := range []string{"compact", "gauge"} {
			var walls []time.Duration
			var cpuBest time.Duration
			var rssMax int64
			for range runs {
				wall, cpu, rss, err := cliFigure(ctx, bin, env, true, cmd, path)
				if err != nil {
					return nil, err
				}
				walls = append(walls, wall)
				if cpuBest == 0 || cpu < cpuBest {
					cpuBest = cpu
				}
				rssMax = max(rssMax, rss)
			}
			wall := median(walls)
			rows = append(rows,
				row{Name: fmt.Sprintf("%s of a %s (CLI, median wall of %d)", cmd, what, runs), Value: seconds(wall), Anchor: "≤ 3 s", Pass: wall <= 3*time.Second},
				row{Name: fmt.Sprintf("%s of a %s (CLI, peak RSS)", cmd, what), Value: fmt.Sprintf("%d MB", rssMax>>20), Anchor: "≤ 300 MB", Pass: rssMax <= 300<<20},
				row{Name: fmt.Sprintf("%s of a %s (CLI, CPU, least of %d)", cmd, what, runs), Value: seconds(cpuBest)})
		}
		wall, rss, err := serverIndexes(ctx, cfg, bin, ws, filepath.Join(cfg.TempDir, "unknown-serve-store", strconv.Itoa(i), "compactd.db"), path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		rows = append(rows,
			row{Name: fmt.Sprintf("server indexing a %s (spawn to gauge)", what), Value: seconds(wall), Anchor: "≤ 3 s", Pass: wall <= 3*time.Second},
			row{Name: fmt.Sprintf("server indexing a %s (peak RSS)", what), Value: fmt.Sprintf("%d MB", rss>>20), Anchor: "≤ 300 MB", Pass: rss <= 300<<20})
		os.RemoveAll(ws)
	}
	return rows, nil
}

// serverIndexes starts compactd serve on ws and returns how long it took
// from spawn to the gauge of path with its savings worked out, and the
// server's peak RSS (bytes) until then.
func serverIndexes(ctx context.Context, cfg *config, bin, ws, storePath, path string) (time.Duration, int64, error) {
	start := time.Now()
	c, err := startChild(ctx, cfg, bin, ws, storePath)
	if err != nil {
		return 0, 0, err
	}
	defer c.stop()
	pid := c.cmd.Process.Pid
	rss := sampleRSS(pid)
	u := protocol.DocumentURI(uri.File(path))
	if _, err := c.waitGauge(ctx, u, time.Time{}, 2*time.Minute, nil); err != nil {
		rss.end()
		return 0, 0, err
	}
	if err := c.settled(ctx, u, 2*time.Minute); err != nil {
		rss.end()
		return 0, 0, err
	}
	wall := time.Since(start)
	peak := rss.end()
	hwm, _ := procStatus(pid, "VmHWM")
	return wall, max(peak, hwm) << 10, nil
}
