package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/transcript"
)

// offChainSession is a session Claude Code 2.1.330 wrote (see the claude
// codec's offchain_test.go): a Read of a PNG, three parallel calls whose
// image result hangs off the parentUuid chain, an Agent call.
func offChainSession(t *testing.T, name string) []byte {
	t.Helper()
	return readFile(t, filepath.Join("..", "..", "compaction", "format", "claude", "testdata", name))
}

// TestForksKeepOffChainResults (issue 34, item 2): a compaction of a real
// Claude Code session whose tool results hang off the chain keeps every
// result whose call it keeps, with every strategy — strip-reasoning alone
// included, which kept the calls and lost an image result — as Claude
// Code's loader reads the fork.
func TestForksKeepOffChainResults(t *testing.T) {
	for _, name := range []string{"offchain-2.1.330.jsonl", "offchain-2.1.330-agent.jsonl", "offchain-sibling.jsonl"} {
		for _, s := range []string{"strip-reasoning", "auto", "strip-attachments", "dedup-tools", "turn-window", "extractive"} {
			t.Run(name+"/"+s, func(t *testing.T) {
				root := isolate(t)
				r := realRunner(t)
				path := filepath.Join(root, name)
				data := offChainSession(t, name)
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				res, err := r.Compact(context.Background(), Request{Path: path, Options: strategy.Options{Strategies: []string{s}, Turns: 2}})
				if err != nil {
					t.Fatal(err)
				}
				forkData := readFile(t, res.ForkPath)
				fork := parse(t, res.ForkPath, forkData)
				c, _ := format.Lookup(fork.Format)
				loaded, err := c.(format.Loader).Load(fork)
				if err != nil {
					t.Fatal(err)
				}
				answered := map[string]bool{}
				for _, m := range loaded {
					for _, p := range m.Parts {
						if p.Kind == transcript.PartToolResult {
							answered[p.ToolCallID] = true
						}
					}
				}
				kept := 0
				for _, m := range loaded {
					for _, p := range m.Parts {
						if p.Kind == transcript.PartToolCall {
							kept++
							if !answered[p.ToolCallID] {
								t.Errorf("the %s fork keeps call %s (%s) without its result", s, p.ToolCallID, p.ToolName)
							}
						}
					}
				}
				if kept == 0 && s == "strip-reasoning" {
					t.Errorf("the strip-reasoning fork kept no call")
				}
			})
		}
	}
}

// TestVerifyForkReadsAsTheAgent: a fork that lost a tool result hanging off
// the chain is refused, whatever compactd's own walk of the source held;
// the check reads both as Claude Code's loader does.
func TestVerifyForkReadsAsTheAgent(t *testing.T) {
	root := isolate(t)
	path := filepath.Join(root, "offchain-2.1.330.jsonl")
	data := offChainSession(t, "offchain-2.1.330.jsonl")
	src, err := parseSource(path, data)
	if err != nil {
		t.Fatal(err)
	}
	view := transcript.NewView(src.t)
	good, err := src.codec.Fork(view, format.ForkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verifyFork(src, view, good); err != nil {
		t.Fatalf("a fork that keeps every result is refused: %v", err)
	}
	// The image result of the parallel calls, gone from the fork (the
	// row after it hung from the row before it).
	bad := dropRow(t, good, "toolu_01000000000005e2e")
	_, err = verifyFork(src, view, bad)
	if err == nil || !strings.Contains(err.Error(), "breaks the API's rules") || !strings.Contains(err.Error(), "toolu_01000000000005e2e") {
		t.Fatalf("a fork without the image result: %v, want it refused for the call it left unanswered", err)
	}
}

// dropRow removes the row holding the tool result of call, hanging the row
// after it from the row before it.
func dropRow(t *testing.T, data []byte, call string) []byte {
	t.Helper()
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, l := range lines {
		if !bytes.Contains(l, []byte(`"tool_use_id":"`+call+`"`)) {
			continue
		}
		var row struct {
			UUID   string `json:"uuid"`
			Parent string `json:"parentUuid"`
		}
		if err := json.Unmarshal(l, &row); err != nil {
			t.Fatal(err)
		}
		var out [][]byte
		out = append(out, lines[:i]...)
		for _, rest := range lines[i+1:] {
			out = append(out, bytes.Replace(rest, []byte(`"parentUuid":"`+row.UUID+`"`), []byte(`"parentUuid":"`+row.Parent+`"`), 1))
		}
		return bytes.Join(out, nil)
	}
	t.Fatalf("no row holds the result of %s", call)
	return nil
}
