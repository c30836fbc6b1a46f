package tokens

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/transcript"
)

var encodingsUnderTest = []string{O200kBase, CL100kBase}

func newCounter(t testing.TB, enc string, opts ...Option) *Counter {
	t.Helper()
	c, err := New(enc, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The whitespace case a faster Go tokenizer gets wrong; it must stay 1.
func TestNewlineSpaceNewlineIsOneToken(t *testing.T) {
	for _, enc := range encodingsUnderTest {
		if got := newCounter(t, enc).Text("\n \n"); got != 1 {
			t.Errorf("%s: %q counts %d tokens, the reference says 1", enc, "\n \n", got)
		}
	}
}

type referenceCase struct {
	Name       string `json:"name"`
	Text       string `json:"text"`
	O200kBase  int    `json:"o200k_base"`
	CL100kBase int    `json:"cl100k_base"`
}

// TestReferenceCounts compares with OpenAI's tiktoken (npm, Rust core),
// numbers produced by cmd/compactd-bench/node/reference_counts.js.
func TestReferenceCounts(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "reference_counts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct{ Cases []referenceCase }
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 20 {
		t.Fatalf("reference table has %d cases, expected the full set", len(ref.Cases))
	}
	for _, enc := range encodingsUnderTest {
		c := newCounter(t, enc)
		for _, rc := range ref.Cases {
			want := rc.O200kBase
			if enc == CL100kBase {
				want = rc.CL100kBase
			}
			got := c.CountText(rc.Text)
			if strings.HasPrefix(rc.Name, "run-") {
				// Long runs are estimated: flagged, and close.
				if !got.Approx {
					t.Errorf("%s %s: long run not marked approximate", enc, rc.Name)
				}
				if rel := math.Abs(float64(got.N-want)) / float64(want); rel > 0.10 {
					t.Errorf("%s %s: estimate %d vs reference %d (%.1f%% off, want ≤ 10%%)", enc, rc.Name, got.N, want, 100*rel)
				}
				continue
			}
			if got.N != want || got.Approx {
				t.Errorf("%s %s: got %+v, reference %d exact", enc, rc.Name, got, want)
			}
		}
	}
}

// Splitting at exact points must give the sequential count on real
// transcript text, whatever the piece size.
func TestSplitIsExact(t *testing.T) {
	texts := map[string]string{}
	for _, dir := range []string{"claude-code", "codex"} {
		entries, _ := os.ReadDir(filepath.Join(repoRoot(t), "..", "shared", "corpus", dir))
		for _, e := range entries {
			if b, err := os.ReadFile(filepath.Join(repoRoot(t), "..", "shared", "corpus", dir, e.Name())); err == nil && !e.IsDir() {
				texts[dir+"/"+e.Name()] = string(b)
			}
		}
	}
	texts["generated"] = strings.Repeat("func f() {\n\treturn 1\n}\n/x/y\n  indented\n\n!\n/z\n", 300)
	for _, enc := range encodingsUnderTest {
		c := newCounter(t, enc)
		for name, s := range texts {
			if len(s) > 256<<10 {
				s = s[:256<<10]
				for len(s) > 0 && !isRuneStart(s[len(s)-1]) {
					s = s[:len(s)-1]
				}
			}
			whole := referenceCount(t, enc, s)
			for _, max := range []int{512, 4096, 65536} {
				sum, inexact := 0, 0
				for _, p := range splitExact(s, max, c.slashJoins, nil) {
					if p.inexact {
						inexact++
					}
					sum += referenceCount(t, enc, p.s)
				}
				// Exact cuts change nothing; a fallback cut (a JSONL line
				// longer than max) may shift a token or two, never more.
				if diff := sum - whole; (inexact == 0 && diff != 0) || diff > 2*inexact || -diff > 2*inexact {
					t.Errorf("%s %s max %d: pieces sum to %d, whole text counts %d (%d inexact cuts)", enc, name, max, sum, whole, inexact)
				}
				if name == "generated" && inexact > 0 {
					t.Errorf("%s: short-line text needed %d inexact cuts", enc, inexact)
				}
			}
		}
	}
}

func repoRoot(t testing.TB) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(wd, "..", "..")
}

func TestSplitPiecesBoundedAndComplete(t *testing.T) {
	s := strings.Repeat("line of text\n", 100_000) // 1.3 MB
	pieces := plan(s, true)
	var b strings.Builder
	for _, p := range pieces {
		if len(p.s) > MaxPiece {
			t.Errorf("piece of %d bytes exceeds MaxPiece", len(p.s))
		}
		if p.run || p.inexact {
			t.Errorf("plain multi-line text produced a run/inexact piece")
		}
		b.WriteString(p.s)
	}
	if b.String() != s {
		t.Fatal("pieces do not reassemble the text")
	}
	if len(pieces) < 5 {
		t.Fatalf("1.3 MB text cut in %d pieces", len(pieces))
	}
}

// A long base64 run must count in well under a second, marked approximate:
// the BPE sees a sample of it (measured as bytes handed to the BPE, which
// load cannot change), and the CPU time, not the wall clock, is bounded.
func TestLongRunsDoNotStall(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	raw := make([]byte, 768<<10)
	for i := range raw {
		raw[i] = byte(rnd.IntN(256))
	}
	b64 := base64.StdEncoding.EncodeToString(raw) // 1 MiB
	cases := map[string]string{
		"base64-1MiB":      b64,
		"letters-1MiB":     strings.Repeat("a", 1<<20),
		"spaces-1MiB":      "x" + strings.Repeat(" ", 1<<20) + "y",
		"punct-1MiB":       strings.Repeat("-", 1<<20),
		"cjk-1MiB":         strings.Repeat("字", 350_000),
		"data-url-in-json": `{"type":"image","source":"data:image/png;base64,` + b64 + `"}` + "\nnext line\n",
	}
	for _, enc := range encodingsUnderTest {
		c := newCounter(t, enc)
		for name, s := range cases {
			before, cpu0 := c.Stats().Bytes, processCPUTime()
			got := c.CountText(s)
			bpe, cpu := c.Stats().Bytes-before, processCPUTime()-cpu0
			t.Logf("%s %s: %d bytes through the BPE, %v CPU", enc, name, bpe, cpu)
			if bpe > 64<<10 {
				t.Errorf("%s %s: %d bytes went through the BPE; a long run is sampled (%d bytes), not counted whole", enc, name, bpe, RunSample)
			}
			if cpu > time.Second {
				t.Errorf("%s %s: took %v of CPU (about 10 ms is usual)", enc, name, cpu)
			}
			if !got.Approx || got.N <= 0 {
				t.Errorf("%s %s: got %+v, want a positive approximate count", enc, name, got)
			}
		}
	}
	// base64 is about 0.7 tokens per character in o200k_base: the
	// extrapolation must stay in that range.
	n := newCounter(t, O200kBase).CountText(b64).N
	if perChar := float64(n) / float64(len(b64)); perChar < 0.55 || perChar > 0.85 {
		t.Errorf("base64 estimate %d tokens for %d chars (%.2f/char)", n, len(b64), perChar)
	}
}

func TestLongRunsDetection(t *testing.T) {
	tests := []struct {
		name string
		s    string
		runs int
	}{
		{"prose", strings.Repeat("some words here. ", 1000), 0},
		{"digits are capped by the regex", strings.Repeat("1234567890", 1000), 0},
		{"letters", "ab " + strings.Repeat("z", 2000) + " cd", 1},
		{"two runs", strings.Repeat("q", 2000) + " mid " + strings.Repeat("=", 2000), 2},
		{"run inside unbroken stretch", strings.Repeat("a1", 40<<10) + strings.Repeat("b", 3000), 1},
		{"short runs", strings.Repeat("x", 1000) + " " + strings.Repeat("y", 1000), 0},
	}
	for _, tt := range tests {
		if got := longRuns(tt.s); len(got) != tt.runs {
			t.Errorf("%s: %d long runs %v, want %d", tt.name, len(got), got, tt.runs)
		}
	}
}

func TestInvalidUTF8DoesNotPanic(t *testing.T) {
	c := newCounter(t, O200kBase)
	for _, s := range []string{"\xff\xfe", "abc\xc3", "\xed\xa0\x80lone surrogate", strings.Repeat("\x80", 5000)} {
		if n := c.CountText(s); n.N <= 0 {
			t.Errorf("%q counted %+v", s, n)
		}
	}
}

type countingCache struct {
	*MemoryCache
	mu   sync.Mutex
	puts int
}

func (c *countingCache) Put(k Key, n Count) {
	c.mu.Lock()
	c.puts++
	c.mu.Unlock()
	c.MemoryCache.Put(k, n)
}

func TestCacheByContentHash(t *testing.T) {
	cache := &countingCache{MemoryCache: NewMemoryCache(0)}
	c := newCounter(t, O200kBase, WithCache(cache))
	text := strings.Repeat("cached text, counted once. ", 10)
	first := c.CountText(text)
	second := c.CountText(strings.Clone(text))
	if first != second {
		t.Fatalf("cached count %+v differs from counted %+v", second, first)
	}
	if st := c.Stats(); st.Texts != 1 || st.CacheHits != 1 {
		t.Fatalf("stats %+v: want 1 counted, 1 hit", st)
	}
	// Another encoding must not see o200k's entry.
	other := newCounter(t, CL100kBase, WithCache(cache))
	other.CountText(text)
	if other.Stats().CacheHits != 0 {
		t.Fatal("cl100k counter hit an o200k cache entry")
	}
	// Short texts are not cached.
	c.CountText("short")
	if cache.puts != 2 {
		t.Fatalf("cache got %d puts, want 2 (short text skipped)", cache.puts)
	}
}

func TestMemoryCacheEvictsLeastRecentlyUsed(t *testing.T) {
	m := NewMemoryCache(2)
	k := func(b byte) Key { return Key{Sum: [32]byte{b}, Encoding: O200kBase} }
	m.Put(k(1), Count{N: 1})
	m.Put(k(2), Count{N: 2})
	m.Get(k(1))
	m.Put(k(3), Count{N: 3})
	if _, ok := m.Get(k(2)); ok {
		t.Error("least recently used entry survived")
	}
	if n, ok := m.Get(k(1)); !ok || n.N != 1 {
		t.Error("recently used entry evicted")
	}
	if m.Len() != 2 {
		t.Errorf("len %d, want 2", m.Len())
	}
}

func sampleMessages(n int) []transcript.Message {
	msgs := make([]transcript.Message, n)
	for i := range msgs {
		msgs[i] = transcript.Message{Role: transcript.RoleAssistant, Parts: []transcript.Part{
			{Kind: transcript.PartText, Text: strings.Repeat("message body with some code: x := f(y)\n", 1+i%7)},
			{Kind: transcript.PartToolCall, ToolName: "Read", Args: `{"file_path":"/src/file_` + strings.Repeat("x", i%5) + `.go"}`},
		}}
	}
	return msgs
}

func TestCountMessagesParallelEqualsSequential(t *testing.T) {
	msgs := sampleMessages(300)
	seq := newCounter(t, O200kBase, WithWorkers(1))
	par := newCounter(t, O200kBase, WithWorkers(4))
	got, err := par.CountMessages(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range msgs {
		if want := seq.CountMessage(&msgs[i]); got[i] != want {
			t.Fatalf("message %d: parallel %+v, sequential %+v", i, got[i], want)
		}
	}
	// A message's count is overhead + parts.
	m := &msgs[0]
	want := MessageOverhead + seq.Text(m.Parts[0].Text) + seq.Text("Read") + seq.Text(m.Parts[1].Args)
	if got[0].N != want {
		t.Fatalf("message 0 counts %d, want %d", got[0].N, want)
	}
}

func TestCountMessagesHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := newCounter(t, O200kBase).CountMessages(ctx, sampleMessages(50)); err == nil {
		t.Fatal("cancelled context gave no error")
	}
}

func TestLargeTextParallelEqualsSequential(t *testing.T) {
	s := strings.Repeat("func main() {\n\tfmt.Println(\"hello, world\")\n}\n", 20_000) // ~900 KB
	seq := newCounter(t, CL100kBase, WithWorkers(1)).CountText(s)
	par := newCounter(t, CL100kBase, WithWorkers(3)).CountText(s)
	if seq != par || seq.Approx {
		t.Fatalf("sequential %+v, parallel %+v", seq, par)
	}
}

func TestImageTokens(t *testing.T) {
	tests := []struct {
		p    ImagePricing
		w, h int
		want int
	}{
		{ImageOpenAI, 1024, 1024, 765},  // OpenAI's documented example
		{ImageOpenAI, 2048, 4096, 1105}, // → 1024×2048 → 768×1536: 6 tiles
		{ImageOpenAI, 0, 0, UnknownImageOpenAI},
		{ImageAnthropic, 1000, 1000, 1334}, // 1e6/750
		{ImageAnthropic, 200, 200, 54},
		{ImageAnthropic, 4000, 3000, 1532}, // scaled to 1238×928 (1.15 MP)
		{ImageAnthropic, 0, 500, UnknownImageAnthropic},
		{ImageGemini, 300, 300, 258},
		{ImageGemini, 1000, 1000, 1032},
	}
	for _, tt := range tests {
		if got := ImageTokens(tt.p, tt.w, tt.h); got != tt.want {
			t.Errorf("ImageTokens(%d, %d×%d) = %d, want %d", tt.p, tt.w, tt.h, got, tt.want)
		}
	}
	c, err := NewForModel(mustLookup(t, "claude-opus-4-1"))
	if err != nil {
		t.Fatal(err)
	}
	img := transcript.Part{Kind: transcript.PartImage, Width: 1000, Height: 1000}
	if got := c.Part(&img); got != 1334 {
		t.Errorf("claude image part counts %d, want Anthropic pricing 1334", got)
	}
}

func mustLookup(t *testing.T, name string) Model {
	m, ok := NewRegistry().Lookup(name)
	if !ok {
		t.Fatalf("%s unknown", name)
	}
	return m
}

func TestRegistryLookup(t *testing.T) {
	tests := []struct {
		name     string
		encoding string
		window   int
		known    bool
	}{
		{"claude-sonnet-4-5-20250929", O200kBase, 200_000, true},
		{"claude-sonnet-4-5-20250929[1m]", O200kBase, 1_000_000, true},
		{"us.anthropic.claude-opus-4-1-20250805-v1:0", O200kBase, 200_000, true},
		{"claude-3-5-haiku-latest", O200kBase, 200_000, true},
		{"gpt-5-codex", O200kBase, 400_000, true},
		{"openai/gpt-4o-mini", O200kBase, 128_000, true},
		{"gpt-4.1", O200kBase, 1_047_576, true},
		{"gpt-4-0613", CL100kBase, 8_192, true},
		{"gpt-3.5-turbo", CL100kBase, 16_385, true},
		{"o3", O200kBase, 200_000, true},
		{"o1-mini", O200kBase, 128_000, true},
		{"gemini-2.5-pro", O200kBase, 1_048_576, true},
		{"models/gemini-2.5-flash", O200kBase, 1_048_576, true},
		{"deepseek-chat", CL100kBase, 128_000, true},
		{"llama-3.1-70b", CL100kBase, 131_072, true},
		{"llama3.1:70b", CL100kBase, 131_072, true},
		{"qwen2.5-coder-32b", CL100kBase, 131_072, true},
		{"qwen3-coder-480b", CL100kBase, 262_144, true},
		{"my-local-model", O200kBase, 128_000, false},
		{"", O200kBase, 128_000, false},
	}
	r := NewRegistry()
	for _, tt := range tests {
		m, ok := r.Lookup(tt.name)
		if ok != tt.known || m.Encoding != tt.encoding || m.ContextWindow != tt.window {
			t.Errorf("Lookup(%q) = %+v, %v; want %s, %d, %v", tt.name, m, ok, tt.encoding, tt.window, tt.known)
		}
	}
}

func TestRegistryOverrides(t *testing.T) {
	r := NewRegistry()
	r.Set(Model{Name: "claude-", ContextWindow: 500_000})
	m, _ := r.Lookup("claude-sonnet-4-5-20250929")
	if m.ContextWindow != 500_000 || !m.Override {
		t.Fatalf("override did not win over the longer built-in: %+v", m)
	}
	r.Set(Model{Name: "Claude-", ContextWindow: 300_000})
	if m, _ := r.Lookup("claude-x"); m.ContextWindow != 300_000 {
		t.Fatalf("second Set did not replace the first: %+v", m)
	}
	if m, _ := NewRegistry().Lookup("claude-x"); m.ContextWindow != 200_000 {
		t.Fatal("overrides leaked into a fresh registry")
	}
	if got := r.Format(transcript.FormatClaudeCode).AutoCompactRatio; got != 0.835 {
		t.Fatalf("claude-code auto-compact ratio %v", got)
	}
	r.SetFormat(transcript.FormatCodex, FormatInfo{DefaultModel: "o3", AutoCompactRatio: 0.8})
	if r.Format(transcript.FormatCodex).DefaultModel != "o3" {
		t.Fatal("SetFormat ignored")
	}
}

func TestUnknownEncoding(t *testing.T) {
	if _, err := New("p51k_nope"); err == nil || !strings.Contains(err.Error(), "p51k_nope") {
		t.Fatalf("err = %v", err)
	}
}

func FuzzCountText(f *testing.F) {
	for _, s := range []string{"\n \n", "hello world", "漢字", "\xff", strings.Repeat("a", 3000)} {
		f.Add(s)
	}
	c := newCounter(f, O200kBase)
	f.Fuzz(func(t *testing.T, s string) {
		n := c.CountText(s)
		if n.N < 0 || (s != "" && n.N == 0) {
			t.Fatalf("%q counted %+v", s, n)
		}
		if !n.Approx && len(s) <= 4096 {
			if want := referenceCount(t, O200kBase, s); n.N != want {
				t.Fatalf("%q: %d, BPE says %d", s, n.N, want)
			}
		}
	})
}
