package strategy

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

var testCounter = sync.OnceValues(func() (*tokens.Counter, error) { return tokens.New("o200k_base") })

func counter(t testing.TB) *tokens.Counter {
	t.Helper()
	c, err := testCounter()
	if err != nil {
		t.Fatalf("tokens.New: %v", err)
	}
	return c
}

// builder assembles a transcript in memory, one record per message, each
// part a block of it, the way line-oriented codecs lay them out.
type builder struct {
	t   *transcript.Transcript
	ids int
}

func newBuilder(f transcript.Format) *builder {
	return &builder{t: &transcript.Transcript{Format: f, Meta: transcript.Meta{Cwd: "/src/app"}}}
}

func (b *builder) add(role transcript.Role, origin transcript.Origin, parts ...transcript.Part) int {
	rec := len(b.t.Records)
	b.t.Records = append(b.t.Records, transcript.Record{Kind: transcript.RecordMessage, Raw: []byte("{}")})
	for k := range parts {
		parts[k].Ref = transcript.Ref{Record: rec, Block: k}
	}
	b.t.Messages = append(b.t.Messages, transcript.Message{
		ID: fmt.Sprintf("m%d", rec), Role: role, Origin: origin, Records: []int{rec}, Parts: parts,
	})
	return len(b.t.Messages) - 1
}

func (b *builder) prompt(text string) int {
	return b.add(transcript.RoleUser, transcript.OriginHuman, text1(text))
}

func (b *builder) say(text string) int {
	return b.add(transcript.RoleAssistant, transcript.OriginAgent, text1(text))
}

func (b *builder) injected(text string) int {
	return b.add(transcript.RoleUser, transcript.OriginInjected, text1(text))
}

// tool adds an assistant message calling name with args and a user message
// with its result; it returns the call's id.
func (b *builder) tool(name string, args any, result string, isErr bool) string {
	b.ids++
	id := fmt.Sprintf("call_%d", b.ids)
	raw, _ := json.Marshal(args)
	b.add(transcript.RoleAssistant, transcript.OriginAgent,
		transcript.Part{Kind: transcript.PartToolCall, ToolCallID: id, ToolName: name, Args: string(raw)})
	b.add(transcript.RoleUser, transcript.OriginToolResult,
		transcript.Part{Kind: transcript.PartToolResult, ToolCallID: id, ToolName: name, Text: result, IsError: isErr})
	return id
}

func (b *builder) think(text, signature string) int {
	return b.add(transcript.RoleAssistant, transcript.OriginAgent,
		transcript.Part{Kind: transcript.PartReasoning, Text: text, Signed: signature != "", Opaque: len(signature)},
		text1("ok"))
}

func (b *builder) build() *transcript.Transcript {
	b.t.Turns = transcript.BuildTurns(b.t.Messages)
	return b.t
}

func text1(s string) transcript.Part { return transcript.Part{Kind: transcript.PartText, Text: s} }

// fileBody is n numbered lines of plausible Go.
func fileBody(name string, n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "%6d\tfunc %s%d(ctx context.Context, in *Input) (*Output, error) { return process(ctx, in, %d) }\n", i, name, i, i*7)
	}
	return sb.String()
}

// viewText is every model-visible string of a view, for assertions.
func viewText(v *transcript.View) string {
	var sb strings.Builder
	for _, m := range v.Messages {
		for _, p := range m.Parts {
			sb.WriteString(p.Text)
			sb.WriteString(p.Args)
			sb.WriteByte('\n')
		}
	}
	for _, s := range v.Summaries {
		sb.WriteString(s.Text)
	}
	return sb.String()
}

func callIDs(v *transcript.View, kind transcript.PartKind) map[string]bool {
	out := map[string]bool{}
	for _, m := range v.Messages {
		for _, p := range m.Parts {
			if p.Kind == kind {
				out[p.ToolCallID] = true
			}
		}
	}
	return out
}

func run1(t *testing.T, tr *transcript.Transcript, opts Options) (*transcript.View, *Report) {
	t.Helper()
	v, rep, err := Run(t.Context(), tr, counter(t), opts)
	if err != nil {
		t.Fatalf("Run(%v): %v", opts.Strategies, err)
	}
	if err := Check(v); err != nil {
		t.Fatalf("Run(%v) result fails Check: %v", opts.Strategies, err)
	}
	return v, rep
}

// apiFamilies are the formats property tests generate transcripts in.
func apiFamilies() []transcript.Format {
	return []transcript.Format{
		transcript.FormatClaudeCode, transcript.FormatCodex, transcript.FormatOpenAIResponses,
		transcript.FormatAnthropicMessages, transcript.FormatGeminiCLI, transcript.FormatOpenAIChat,
	}
}

// propertyRuns is how many generated transcripts a property test checks.
func propertyRuns() int {
	if testing.Short() {
		return 60
	}
	return 300
}
