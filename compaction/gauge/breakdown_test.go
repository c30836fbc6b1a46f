package gauge_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

func load(t *testing.T, path string) (*transcript.Transcript, []tokens.Count, gauge.Gauge) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := format.Detect(path, b)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	r := gauge.Resolve(tr, gauge.Options{})
	counter, err := tokens.NewForModel(r.Info)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := counter.CountMessages(context.Background(), tr.Messages)
	if err != nil {
		t.Fatal(err)
	}
	return tr, counts, gauge.Compute(tr, counts, gauge.Options{})
}

// The Claude Code 2.1.92 case: 194,791 / 200,000 with 3,254 tokens of
// transcript. The breakdown sums to the gauge exactly, puts the rest
// outside the transcript, names the MCP servers the transcript lists, and
// says compaction cannot help; the one-span "−98 %" error is hidden.
func TestBreakdownAlmostAllOutside(t *testing.T) {
	tr, counts, g := load(t, filepath.Join("testdata", "claude-2.1.92-outside.jsonl"))
	if g.Tokens != 194_791 || g.ContextWindow != 200_000 {
		t.Fatalf("gauge %d / %d, want 194,791 / 200,000", g.Tokens, g.ContextWindow)
	}
	b := gauge.BreakdownOf(g, tr, counts, gauge.TallyOptions{Images: tokens.ImageAnthropic}, gauge.BreakdownOptions{KeepLast: 1})
	if b.Sum() != g.Tokens {
		t.Fatalf("parts sum to %d, gauge is %d: %+v", b.Sum(), g.Tokens, b.Parts)
	}
	if b.Inside != 3_254 || b.Outside.Tokens != 194_791-3_254 || !b.Outside.Measured {
		t.Fatalf("inside %d outside %+v", b.Inside, b.Outside)
	}
	if b.Parts[0].Category != gauge.CategoryOutside {
		t.Fatalf("outside is not the first part: %+v", b.Parts)
	}
	if !strings.Contains(b.Outside.Label, "system prompt") || !strings.Contains(b.Outside.Label, "CLAUDE.md") {
		t.Errorf("outside label %q does not name the agent's parts", b.Outside.Label)
	}
	var mcp string
	for _, k := range b.Outside.Known {
		if k.Name == "MCP servers" {
			mcp = k.Detail
		}
	}
	if mcp != "github (4 tools), linear (2 tools), sentry (1 tool)" {
		t.Errorf("MCP servers named %q", mcp)
	}
	if !b.OutsideDominates() {
		t.Error("outside does not dominate")
	}
	reach := b.Reach()
	if !strings.HasPrefix(reach, "98 % of what the model reads (191,537 of 194,791 tokens) is outside the transcript (system prompt") || !strings.HasSuffix(reach, "compaction can reach at most 48 tokens (<0.1 % of the window)") {
		t.Errorf("reach %q", reach)
	}
	if why := b.WhyLittle(0); why != reach {
		t.Errorf("a dry run saving nothing is not explained: %q", why)
	}
	if g.EstimateError != nil {
		t.Errorf("estimate error %v shown from one span between usage points", *g.EstimateError)
	}
	// The tool result is the MCP call's.
	if len(b.Tools) != 1 || b.Tools[0].Name != "mcp__github__get_issue" || b.Tools[0].Results != 1 {
		t.Errorf("tools %+v", b.Tools)
	}
}

// The Claude Code 2.1.330 case: 24k, of which 3,320 are the transcript.
func TestBreakdownSmallSession(t *testing.T) {
	tr, counts, g := load(t, filepath.Join("testdata", "claude-2.1.330-24k.jsonl"))
	if g.Tokens < 24_000 || g.Tokens >= 24_500 {
		t.Fatalf("gauge %d, want 24k", g.Tokens)
	}
	b := gauge.BreakdownOf(g, tr, counts, gauge.TallyOptions{Images: tokens.ImageAnthropic}, gauge.BreakdownOptions{KeepLast: 1})
	if b.Sum() != g.Tokens || b.Inside != 3_320 {
		t.Fatalf("sum %d inside %d, gauge %d", b.Sum(), b.Inside, g.Tokens)
	}
	got := map[gauge.Category]int{}
	for _, p := range b.Parts {
		got[p.Category] = p.Tokens
	}
	for _, c := range []gauge.Category{gauge.CategoryOutside, gauge.CategoryUser, gauge.CategoryAssistant, gauge.CategoryToolCalls, gauge.CategoryToolResults} {
		if got[c] <= 0 {
			t.Errorf("no %s in %+v", c, b.Parts)
		}
	}
	if b.Tools[0].Name != "Read" || b.Tools[0].Results != 2 {
		t.Errorf("top tool %+v, want Read with 2 results", b.Tools[0])
	}
	// The last turn (the test run) is kept: compaction reaches the rest.
	if b.Reachable <= 0 || b.Reachable >= b.Inside {
		t.Errorf("reachable %d of %d", b.Reachable, b.Inside)
	}
	// A dry run saving 650 of 24k (2.7 %) is explained; most is outside.
	if why := b.WhyLittle(650); !strings.Contains(why, "outside the transcript") {
		t.Errorf("why %q", why)
	}
	if brief := b.Brief(3); !strings.HasPrefix(brief, "outside 21k · assistant") {
		t.Errorf("brief %q", brief)
	}
}

// A tally advanced append by append equals the one computed from scratch,
// and an append that changes the last message (Claude Code merges a
// response's lines) resumes from the mark.
func TestTallyAdvanceMatchesScratch(t *testing.T) {
	path := filepath.Join("..", "..", "cmd", "compactd", "testdata", "workspace", "claude", "session.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := format.Detect(path, b)
	app := c.(format.Appender)
	lines := strings.SplitAfter(string(b), "\n")
	counter, _ := tokens.New(tokens.O200kBase)
	var (
		tr    *transcript.Transcript
		tally gauge.Tally
		prev  []tokens.Count
	)
	step := 17
	for end := step; ; end += step {
		if end > len(lines) {
			end = len(lines)
		}
		chunk := strings.Join(lines[:end], "")
		same := 0
		if tr == nil {
			tr, err = c.Parse([]byte(chunk))
		} else {
			tr, err = app.Append(tr, []byte(chunk[tr.Size:]))
			same = tr.Kept
		}
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := counter.CountMessages(context.Background(), tr.Messages)
		for i := 0; i < same && i < len(prev); i++ {
			if cs[i] != prev[i] {
				t.Fatalf("kept message %d changed count", i)
			}
		}
		prev = cs
		tally = tally.Advance(tr, cs, same, gauge.TallyOptions{})
		g := gauge.Compute(tr, cs, gauge.Options{})
		got := tally.Breakdown(g, tr, cs, gauge.BreakdownOptions{})
		want := gauge.BreakdownOf(g, tr, cs, gauge.TallyOptions{}, gauge.BreakdownOptions{})
		if got.Sum() != g.Tokens || want.Sum() != g.Tokens {
			t.Fatalf("at line %d: sums %d and %d, gauge %d", end, got.Sum(), want.Sum(), g.Tokens)
		}
		if !equalParts(got.Parts, want.Parts) || got.Reachable != want.Reachable {
			t.Fatalf("at line %d: advanced %+v, scratch %+v", end, got.Parts, want.Parts)
		}
		if ge, we := tally.EstimateError(), gauge.BreakdownOf(g, tr, cs, gauge.TallyOptions{}, gauge.BreakdownOptions{}); ge.Spans < 0 || we.Inside != got.Inside {
			t.Fatalf("inside %d vs %d", got.Inside, we.Inside)
		}
		if end == len(lines) {
			break
		}
	}
}

func equalParts(a, b []gauge.CategoryTokens) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The daemon drops the parts of older messages as it reads a large file
// (format.Trimmer): a tally advanced before each trim equals one computed
// from an untrimmed parse of the same bytes.
func TestTallyAdvanceSurvivesTrimming(t *testing.T) {
	path := filepath.Join("..", "..", "cmd", "compactd", "testdata", "workspace", "claude", "session.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := format.Detect(path, b)
	trimmer := c.(format.Trimmer)
	lines := strings.SplitAfter(string(b), "\n")
	counter, _ := tokens.New(tokens.O200kBase)
	tr, err := trimmer.Append(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var (
		tally gauge.Tally
		cs    []tokens.Count
		size  int
	)
	for end := 13; ; end += 13 {
		end = min(end, len(lines))
		chunk := strings.Join(lines[:end], "")
		nt, err := trimmer.Append(tr, []byte(chunk[size:]))
		if err != nil {
			t.Fatalf("append at line %d: %v", end, err)
		}
		same := min(nt.Kept, len(cs))
		fresh, _ := counter.CountMessages(context.Background(), nt.Messages[same:])
		cs = append(cs[:same:same], fresh...)
		tally = tally.Advance(nt, cs, same, gauge.TallyOptions{})
		trimmer.Trim(nt, len(nt.Messages))
		tr, size = nt, int(nt.Size)
		if end == len(lines) {
			break
		}
	}
	whole, _ := c.Parse(b)
	wcs, _ := counter.CountMessages(context.Background(), whole.Messages)
	g := gauge.Compute(whole, wcs, gauge.Options{})
	got := tally.Breakdown(g, whole, wcs, gauge.BreakdownOptions{})
	want := gauge.BreakdownOf(g, whole, wcs, gauge.TallyOptions{}, gauge.BreakdownOptions{})
	if !equalParts(got.Parts, want.Parts) || got.Inside != want.Inside || len(got.Tools) != len(want.Tools) {
		t.Fatalf("advanced over trimmed pieces\n%+v\nfrom scratch\n%+v", got, want)
	}
	for i := range got.Tools {
		if got.Tools[i] != want.Tools[i] {
			t.Fatalf("tools %+v, from scratch %+v", got.Tools, want.Tools)
		}
	}
}
