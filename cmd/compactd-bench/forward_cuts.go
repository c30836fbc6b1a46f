package main

// Where the forward-coverage measure cuts real sessions: at every
// compaction the agent itself recorded (Claude Code's compact_boundary with
// its isCompactSummary, Codex's compacted, Gemini CLI's and Qwen Code's
// compression, Copilot CLI's compaction), with the agent's own result as
// the anchor, and at the human prompts nearest 50 % and 70 % of a
// session's prompts, with plain truncation as the baseline.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

// Cut kinds.
const (
	cutAgent = "agent"
	cut5050  = "50/50"
	cut7030  = "70/30"
)

// isPromptCut reports whether a cut kind is one at a share of the prompts
// (judged against truncation) rather than at an agent's compaction.
func isPromptCut(kind string) bool { return kind == cut5050 || kind == cut7030 }

// A forwardCut is one point of one real session where a compaction is
// judged by what the conversation did next.
type forwardCut struct {
	Session string
	Label   string
	Kind    string
	Codec   format.Codec
	// Prefix is the session as it stood at the cut, in its own format: what
	// a user compacting at that moment hands to compactd.
	Prefix []byte
	Ext    string
	// Before are Prefix's messages; After what the conversation did after
	// the cut (the agent's summary left out).
	Before, After []transcript.Message
	// Anchor is what the agent's own compaction left the model (agent cuts).
	Anchor []transcript.Message
	// Reference are the entities After refers to that Before already held.
	Reference entitySet
	// State is the working state After needs: the files Before edited
	// that After touches, each with its last content.
	State []fileState
	// Split, Agent and Repo are the session's, from the manifest.
	Split, Agent, Repo string
}

// sessionSource is one real session file and where it came from.
type sessionSource struct {
	Path   string
	Name   string
	Origin string
	// SHA256 is the file's digest in testdata/forward/manifest.json; a
	// file that does not match it is refused.
	SHA256 string
	// Split is the half it belongs to ("tune" or "validate"; "bench" and
	// "dev" in the first corpus), Agent the agent that wrote it, Repo the
	// project it comes from: the halves are split by project.
	Split, Agent, Repo string
}

// forwardSessionsDir finds the folder of fetched public sessions the
// measure runs on (see testdata/forward/SOURCES.md): $COMPACTD_FORWARD_SESSIONS,
// else forward-sessions/ in the shared folder beside the repository (next
// to the corpus, not in it: the codec tests read every corpus file as a
// fixture of its folder's format).
func forwardSessionsDir() string {
	if d := os.Getenv("COMPACTD_FORWARD_SESSIONS"); d != "" {
		return d
	}
	root, err := repoRoot()
	if err != nil {
		return ""
	}
	d := filepath.Join(root, "..", "shared", "forward-sessions")
	if fi, err := os.Stat(d); err == nil && fi.IsDir() {
		return d
	}
	return ""
}

// manifestEntry is one session of testdata/forward/manifest.json.
type manifestEntry struct {
	Split  string `json:"split"`
	Agent  string `json:"agent"`
	File   string `json:"file"`
	Repo   string `json:"repo"`
	SHA256 string `json:"sha256"`
}

// readManifest reads testdata/forward/manifest.json.
func readManifest() ([]manifestEntry, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(root, "cmd", "compactd-bench", "testdata", "forward", "manifest.json"))
	if err != nil {
		return nil, err
	}
	var entries []manifestEntry
	if err := json.Unmarshal(b, &entries); err != nil {
		return nil, fmt.Errorf("testdata/forward/manifest.json: %w", err)
	}
	return entries, nil
}

// forwardSplits are the halves a run measures: $COMPACTD_FORWARD_SPLIT
// (comma-separated), else tune and validate when the manifest has them,
// else the first corpus's bench split.
func forwardSplits(entries []manifestEntry) []string {
	if s := os.Getenv("COMPACTD_FORWARD_SPLIT"); s != "" {
		var out []string
		for _, x := range strings.Split(s, ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
		return out
	}
	has := map[string]bool{}
	for _, e := range entries {
		has[e.Split] = true
	}
	var out []string
	for _, s := range []string{splitTune, splitValidate} {
		if has[s] {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = []string{splitBench}
	}
	return out
}

// The halves of the corpus.
const (
	splitTune     = "tune"
	splitValidate = "validate"
	splitBench    = "bench" // the first corpus's reported half
)

// forwardSources lists the sessions of one split — every manifest entry
// of it, read from the sessions folder, narrowed by
// $COMPACTD_FORWARD_AGENTS (comma-separated agents) and
// $COMPACTD_FORWARD_MATCH (a substring of the file name) — and, for the
// first corpus's bench split, the shared corpus's real sessions long
// enough to cut.
func forwardSources(entries []manifestEntry, split string) ([]sessionSource, error) {
	var out []sessionSource
	dir := forwardSessionsDir()
	if dir == "" {
		return nil, fmt.Errorf("no forward-coverage sessions: set COMPACTD_FORWARD_SESSIONS to the folder testdata/forward/SOURCES.md describes")
	}
	agents := map[string]bool{}
	for _, a := range strings.Split(os.Getenv("COMPACTD_FORWARD_AGENTS"), ",") {
		if a = strings.TrimSpace(a); a != "" {
			agents[a] = true
		}
	}
	match := os.Getenv("COMPACTD_FORWARD_MATCH")
	for _, e := range entries {
		if e.Split != split || len(agents) > 0 && !agents[e.Agent] || match != "" && !strings.Contains(e.File, match) {
			continue
		}
		path := filepath.Join(dir, filepath.FromSlash(e.File))
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("%s (in testdata/forward/manifest.json) is not in the sessions folder: %w", e.File, err)
		}
		out = append(out, sessionSource{Path: path, Name: e.File, Origin: "fetched", SHA256: e.SHA256, Split: e.Split, Agent: e.Agent, Repo: e.Repo})
	}
	if c := corpusDir(); c != "" && split == splitBench && len(agents) == 0 && match == "" {
		for _, name := range []string{
			"claude-code/real-v1.0.51-tools-summary.jsonl",
			"claude-code/real-v2.0.42-thinking-PREFIX.jsonl",
			"openai-chat/real-mini-swe-agent-toolcalls.traj.json",
		} {
			agent, _, _ := strings.Cut(name, "/")
			out = append(out, sessionSource{Path: filepath.Join(c, name), Name: "corpus/" + name, Origin: "corpus", Split: split, Agent: agent, Repo: "corpus"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// loadCuts reads a session and returns its cuts: one per agent compaction
// and one 70/30 cut of its longest stretch without one.
func loadCuts(src sessionSource) ([]*forwardCut, error) {
	data, err := os.ReadFile(src.Path)
	if err != nil {
		return nil, err
	}
	if src.SHA256 != "" {
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != src.SHA256 {
			return nil, fmt.Errorf("%s differs from the file its manifest entry describes (sha256 %s)", src.Path, src.SHA256)
		}
	}
	codec, err := format.Detect(src.Path, data)
	if err != nil {
		return nil, err
	}
	t, err := codec.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	ext := filepath.Ext(src.Path)
	if strings.HasSuffix(src.Path, ".traj.json") {
		ext = ".traj.json"
	}
	var cuts []*forwardCut
	// The stretches between agent compactions, as the model had them.
	segments := []*transcript.Transcript{}
	if reader, ok := codec.(format.CompactionReader); ok {
		list := reader.AgentCompactions(t)
		for i, c := range list {
			if c.Summary == "" && len(c.After) == 0 {
				continue // a microcompact: no summary to compare with
			}
			before, err := reader.BeforeCompaction(t, i, format.ForkOptions{})
			if err != nil {
				// The history before it is not in this file (a transcript
				// that starts after the compaction): nothing to cut.
				continue
			}
			bt, err := codec.Parse(before)
			if err != nil {
				return nil, fmt.Errorf("%s a%d: the history before it does not parse: %w", src.Name, i+1, err)
			}
			segments = append(segments, bt)
			// What followed: the stretch up to the next compaction (the
			// history before it), or the session's active branch.
			next := t
			if i+1 < len(list) {
				nb, err := reader.BeforeCompaction(t, i+1, format.ForkOptions{})
				if err != nil {
					continue
				}
				if next, err = codec.Parse(nb); err != nil {
					return nil, err
				}
			}
			after := afterCompaction(next.Messages, c.After)
			cut := &forwardCut{Session: src.Name, Label: fmt.Sprintf("a%d", i+1), Kind: cutAgent, Codec: codec, Prefix: before, Ext: ext,
				Before: bt.Messages, After: after, Anchor: anchorMessages(next.Messages, c.After),
				Split: src.Split, Agent: src.Agent, Repo: src.Repo}
			cut.Reference = referenceEntities(cut.Before, cut.After)
			cut.State = workingState(cut.Before, cut.After)
			if len(cut.Reference) > 0 && len(cut.Anchor) > 0 {
				cuts = append(cuts, cut)
			}
		}
	}
	segments = append(segments, t)
	longest := segments[0]
	for _, s := range segments[1:] {
		if len(s.Messages) > len(longest.Messages) {
			longest = s
		}
	}
	cs, err := promptCuts(src, codec, longest, ext)
	if err != nil {
		return nil, err
	}
	cuts = append(cuts, cs...)
	return cuts, nil
}

// afterCompaction drops, from the messages a stretch starts with, the ones
// the agent's compaction put there (its summary or replacement history).
func afterCompaction(msgs, anchor []transcript.Message) []transcript.Message {
	s, n := anchorSpan(msgs, anchor)
	return msgs[s+n:]
}

// anchorMessages is what the agent's compaction left the model: its
// summary (or replacement history), as the stretch after it starts.
func anchorMessages(msgs, anchor []transcript.Message) []transcript.Message {
	s, n := anchorSpan(msgs, anchor)
	return msgs[s : s+n]
}

// anchorSpan is where the compaction's messages start in msgs (after the
// agent's system prompt, which no compaction touches) and how many there
// are.
func anchorSpan(msgs, anchor []transcript.Message) (start, n int) {
	for start < len(msgs) && isSystemPrompt(&msgs[start]) {
		start++
	}
	return start, anchorLen(msgs[start:], anchor)
}

// anchorLen is how many leading messages of msgs the compaction wrote:
// as many as it recorded, or, when the parse merged or split them, every
// leading message that is a summary or injected context.
func anchorLen(msgs, anchor []transcript.Message) int {
	n := 0
	for n < len(msgs) && n < len(anchor) && msgs[n].Role == anchor[n].Role {
		n++
	}
	if n == len(anchor) {
		return n
	}
	n = 0
	for n < len(msgs) && (msgs[n].Origin == transcript.OriginSummary || msgs[n].Origin == transcript.OriginInjected) {
		n++
	}
	return n
}

// promptCuts cuts t at the human prompts nearest 50 % and 70 % of its
// prompts (one cut when both are the same prompt); none when t has too
// few prompts to cut.
func promptCuts(src sessionSource, codec format.Codec, t *transcript.Transcript, ext string) ([]*forwardCut, error) {
	var prompts []int
	for i := range t.Messages {
		m := &t.Messages[i]
		if transcript.StartsTurn(m) && m.Origin == transcript.OriginHuman {
			prompts = append(prompts, i)
		}
	}
	if len(prompts) < 4 {
		return nil, nil
	}
	var out []*forwardCut
	done := map[int]bool{}
	for _, at := range []struct {
		kind  string
		share float64
	}{{cut5050, 0.5}, {cut7030, 0.7}} {
		target := at.share * float64(len(prompts))
		best := prompts[0]
		bestD := math.Inf(1)
		for k, i := range prompts {
			if d := math.Abs(float64(k) - target); d < bestD && k > 0 {
				best, bestD = i, d
			}
		}
		if done[best] {
			continue
		}
		done[best] = true
		v := transcript.NewView(t)
		v.Messages = v.Messages[:best]
		prefix, err := codec.Fork(v, format.ForkOptions{})
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", src.Name, at.kind, err)
		}
		pt, err := codec.Parse(prefix)
		if err != nil {
			return nil, fmt.Errorf("%s %s: the prefix does not parse: %w", src.Name, at.kind, err)
		}
		c := &forwardCut{Session: src.Name, Label: at.kind, Kind: at.kind, Codec: codec, Prefix: prefix, Ext: ext,
			Before: pt.Messages, After: t.Messages[best:], Split: src.Split, Agent: src.Agent, Repo: src.Repo}
		c.Reference = referenceEntities(c.Before, c.After)
		c.State = workingState(c.Before, c.After)
		if len(c.Reference) > 0 {
			out = append(out, c)
		}
	}
	return out, nil
}

// referenceEntities are the entities the conversation after the cut
// refers to — in the user's prompts, the assistant's text and its tool
// calls' arguments — that the conversation before the cut already named.
func referenceEntities(before, after []transcript.Message) entitySet {
	named := entitySet{}
	for i := range after {
		m := &after[i]
		switch {
		case m.Role == transcript.RoleUser && m.Origin == transcript.OriginHuman && transcript.StartsTurn(m):
			for _, p := range m.Parts {
				if p.Kind == transcript.PartText {
					textEntities(p.Text, named)
				}
			}
		case m.Role == transcript.RoleAssistant:
			for _, p := range m.Parts {
				switch p.Kind {
				case transcript.PartText:
					textEntities(p.Text, named)
				case transcript.PartToolCall:
					argsEntities(p.Args, named)
				}
			}
		}
	}
	held := entitySet{}
	for i := range before {
		if isSystemPrompt(&before[i]) {
			continue
		}
		for _, p := range before[i].Parts {
			switch p.Kind {
			case transcript.PartToolCall:
				argsEntities(p.Args, held)
			case transcript.PartReasoning, transcript.PartOpaque, transcript.PartImage:
			default:
				textEntities(p.Text, held)
			}
		}
	}
	ref := entitySet{}
	for e := range named {
		if held[e] {
			ref[e] = true
		}
	}
	return ref
}

// renderVisible writes what the model reads of msgs, the same way for
// every candidate: each message's role, its text, its tool calls (name and
// arguments), tool results and attached text. Reasoning is left out: the
// APIs do not send earlier turns' thinking back (and encrypted reasoning
// is unreadable), so no candidate gains or loses by it.
func renderVisible(msgs []transcript.Message) string {
	var b bytes.Buffer
	for i := range msgs {
		if !isSystemPrompt(&msgs[i]) {
			writeVisible(&b, &msgs[i])
		}
	}
	return b.String()
}

// isSystemPrompt reports whether m is the agent's system prompt, which a
// format keeps in the transcript (Codex's base instructions) and the agent
// sends with every request whatever the history: no candidate can lose or
// keep it, so no candidate is scored or counted with it.
func isSystemPrompt(m *transcript.Message) bool {
	return m.Role == transcript.RoleSystem && m.Pinned
}

func writeVisible(b *bytes.Buffer, m *transcript.Message) {
	b.WriteString(string(m.Role))
	b.WriteString(": ")
	for _, p := range m.Parts {
		switch p.Kind {
		case transcript.PartText, transcript.PartToolResult, transcript.PartAttachment, transcript.PartDocument:
			b.WriteString(p.Text)
			b.WriteByte('\n')
		case transcript.PartToolCall:
			b.WriteString(p.ToolName)
			b.WriteByte(' ')
			b.WriteString(p.Args)
			b.WriteByte('\n')
		}
	}
}

// coverage is the share of ref that text still names.
func coverage(text string, ref entitySet) (kept int) {
	for e := range ref {
		if containsEntity(text, e) {
			kept++
		}
	}
	return kept
}

// cutsJSON is a cut's description for -v runs.
func (c *forwardCut) String() string {
	b, _ := json.Marshal(struct {
		Session, Label        string
		Before, After, Anchor int
		Reference             int
	}{c.Session, c.Label, len(c.Before), len(c.After), len(c.Anchor), len(c.Reference)})
	return string(b)
}
