package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/tokens"
)

func init() {
	register(section{
		Name:    "tokens",
		Summary: "token-count throughput of our counter vs OpenAI's tiktoken (npm, Rust as WASM) on the same transcript text",
		Run:     benchTokens,
	})
}

// nodeResult is what node/throughput.js prints.
type nodeResult struct {
	Tokens  int     `json:"tokens"`
	Seconds float64 `json:"seconds"`
	Bytes   int     `json:"bytes"`
}

func benchTokens(ctx context.Context, cfg *config) ([]row, error) {
	size := 20 << 20
	if cfg.Quick {
		size = 4 << 20
	}
	text := sessiongen.ClaudeCode(sessiongen.Options{Seed: 20, TargetBytes: size})
	text = text[:lineEnd(text, size)]
	lines := strings.Split(string(text), "\n")
	file := filepath.Join(cfg.TempDir, "tokens-text.jsonl")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		return nil, err
	}
	nodeDir, err := nodeDir()
	if err != nil {
		return nil, err
	}
	if err := ensureNodeModules(ctx, cfg, nodeDir); err != nil {
		return nil, err
	}
	mb := float64(len(text)) / 1e6
	parallel := runtime.GOMAXPROCS(0)
	var rows []row
	for _, workers := range []int{1, parallel} {
		label := "1 thread"
		if workers > 1 {
			label = fmt.Sprintf("%d threads", workers)
		}
		counter, err := tokens.New(tokens.O200kBase, tokens.WithWorkers(workers))
		if err != nil {
			return nil, err
		}
		start := time.Now()
		counts, err := counter.CountTexts(ctx, lines)
		if err != nil {
			return nil, err
		}
		goSecs := time.Since(start).Seconds()
		ours := tokens.Sum(counts)
		cfg.logf("tokens: ours %s: %d tokens in %.2fs", label, ours.N, goSecs)

		ref, err := runNode(ctx, nodeDir, file, workers)
		if err != nil {
			return nil, err
		}
		cfg.logf("tokens: tiktoken %s: %d tokens in %.2fs", label, ref.Tokens, ref.Seconds)
		ratio := (mb / goSecs) / (mb / ref.Seconds)
		countNote := ""
		if ours.Approx {
			countNote = " (ours approximate: long runs)"
		}
		rows = append(rows,
			row{Name: fmt.Sprintf("count throughput ours/tiktoken, %s, %.0f MB (library calls)", label, mb), Value: fmt.Sprintf("%.2f×", ratio)},
			row{Name: fmt.Sprintf("token counts ours vs tiktoken, %s (library calls; the test suite holds them equal)", label), Value: fmt.Sprintf("%s vs %s%s", tokens.Thousands(ours.N), tokens.Thousands(ref.Tokens), countNote)},
			row{Name: fmt.Sprintf("ours o200k_base, %s", label), Value: fmt.Sprintf("%.2f MB/s", mb/goSecs)},
			row{Name: fmt.Sprintf("tiktoken (npm) o200k_base, %s", label), Value: fmt.Sprintf("%.2f MB/s", mb/ref.Seconds)},
		)
	}
	return rows, nil
}

// lineEnd returns the end of the last complete line within the first n bytes.
func lineEnd(b []byte, n int) int {
	if n >= len(b) {
		return len(b)
	}
	if i := bytes.LastIndexByte(b[:n], '\n'); i >= 0 {
		return i + 1
	}
	return n
}

// nodeDir finds cmd/compactd-bench/node from the working directory (the
// repository root under `make bench`, or this package's directory).
func nodeDir() (string, error) {
	for _, dir := range []string{filepath.Join("cmd", "compactd-bench", "node"), "node"} {
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
			return filepath.Abs(dir)
		}
	}
	return "", fmt.Errorf("cannot find cmd/compactd-bench/node/package.json; run from the repository root")
}

// ensureNodeModules installs the locked tiktoken when node_modules is missing.
func ensureNodeModules(ctx context.Context, cfg *config, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "tiktoken")); err == nil {
		return nil
	}
	cfg.logf("tokens: running npm ci in %s", dir)
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci in %s: %w\n%s", dir, err, out)
	}
	return nil
}

func runNode(ctx context.Context, dir, file string, workers int) (nodeResult, error) {
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "throughput.js"), file, tokens.O200kBase, strconv.Itoa(workers))
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nodeResult{}, fmt.Errorf("node throughput.js: %w: %s", err, stderr.String())
	}
	var r nodeResult
	if err := json.Unmarshal(out, &r); err != nil {
		return nodeResult{}, fmt.Errorf("node throughput.js printed %q: %w", out, err)
	}
	return r, nil
}
