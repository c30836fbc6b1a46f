package transcript

import "time"

// Format names an on-disk transcript format. The values are stable: they
// appear in JSON output, the store and the editors.
type Format string

const (
	FormatClaudeCode        Format = "claude-code"
	FormatCodex             Format = "codex"
	FormatOpenAIChat        Format = "openai-chat"
	FormatOpenAIResponses   Format = "openai-responses"
	FormatAnthropicMessages Format = "anthropic-messages"
	FormatJP                Format = "jp"
	FormatGeminiCLI         Format = "gemini-cli"
	FormatAider             Format = "aider"
	FormatCline             Format = "cline"
	// FormatClineUI is a Cline / Roo Code / Kilo task's display log
	// (ui_messages.json), read where the task has no API history.
	FormatClineUI     Format = "cline-ui"
	FormatQwenCode    Format = "qwen-code"
	FormatOpenCode    Format = "opencode"
	FormatKilo        Format = "kilo"
	FormatCopilotCLI  Format = "copilot-cli"
	FormatCursorAgent Format = "cursor-agent"
	FormatCopilotChat Format = "copilot-chat"
)

// RecordKind says what role an on-disk record plays.
type RecordKind uint8

const (
	// RecordMessage carries (part of) a conversation message.
	RecordMessage RecordKind = iota
	// RecordMeta is metadata the model never sees (session_meta, snapshots, titles, UI events).
	RecordMeta
	// RecordMarker is a compaction marker written by the agent (compact_boundary, compacted).
	RecordMarker
	// RecordUnknown is a well-formed record of a type we do not know; it is passed through.
	RecordUnknown
	// RecordMalformed could not be decoded; it is counted, reported and passed through.
	RecordMalformed
)

func (k RecordKind) String() string {
	switch k {
	case RecordMessage:
		return "message"
	case RecordMeta:
		return "meta"
	case RecordMarker:
		return "marker"
	case RecordUnknown:
		return "unknown"
	default:
		return "malformed"
	}
}

// A Record is one on-disk unit: a JSONL line, a JSON array element, a
// Markdown block. Raw holds its exact bytes (without the separator that
// follows it); Start and End are Raw's byte range in the source.
type Record struct {
	Start, End int64
	Raw        []byte
	Kind       RecordKind
	// ID is the record's stable identifier where the format has one (Claude uuid).
	ID string
	// Type is the format's own type tag ("assistant", "response_item", …), for reports.
	Type string
	// Err explains why a RecordMalformed record could not be decoded.
	Err string
}

// Role is who speaks a message, in API terms.
type Role string

const (
	RoleSystem    Role = "system"
	RoleDeveloper Role = "developer"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Origin says where a message came from, beyond its role: a user-role
// message may be typed by a human, injected by the harness, be a tool result
// or the summary of an earlier compaction.
type Origin string

const (
	OriginHuman      Origin = "human"
	OriginInjected   Origin = "injected"
	OriginToolResult Origin = "tool-result"
	OriginSummary    Origin = "compact-summary"
	OriginAgent      Origin = "agent"
	OriginSubagent   Origin = "subagent"
)

// PartKind is the kind of one piece of message content.
type PartKind string

const (
	PartText       PartKind = "text"
	PartReasoning  PartKind = "reasoning"
	PartToolCall   PartKind = "tool_call"
	PartToolResult PartKind = "tool_result"
	PartImage      PartKind = "image"
	PartDocument   PartKind = "document"
	PartAttachment PartKind = "attachment"
	// PartOpaque is content the model sees but we cannot read (encrypted
	// reasoning, redacted thinking); it is kept byte-exact, never re-encoded.
	PartOpaque PartKind = "opaque"
)

// Ref locates a part in the source: the record that holds it and the index
// of its block within that record's content (-1 when the part is the
// record's whole content). Codecs use it to rewrite exactly that block.
type Ref struct {
	Record int
	Block  int
}

// A Part is one piece of message content.
//
// A part is one content block of any format, and each kind uses a few of its fields: hence more
// than a dozen.
type Part struct {
	Kind PartKind
	// Text is the model-visible text: prose, reasoning, a tool result's
	// output, an attachment's injected content.
	Text string
	// ToolCallID pairs a tool_call with its tool_result.
	ToolCallID string
	// ToolName is the called tool's name (on results too, when known).
	ToolName string
	// Args is the tool call's arguments as JSON text.
	Args string
	// IsError marks a failed tool result.
	IsError bool
	// MIME, Width, Height and Size describe images and documents; Width and
	// Height are 0 when unknown, Size is the payload in bytes.
	MIME          string
	Width, Height int
	Size          int
	// Signed marks reasoning that carries a signature or encrypted content
	// the API checks: the part may be dropped but never altered.
	Signed bool
	// Opaque is the byte size of encrypted or signature payload the model
	// receives (counted as tokens by size).
	Opaque int
	Ref    Ref
	// Changed is set by compaction when Text (or Args) no longer matches the
	// source and the codec must re-render this block.
	Changed bool
}

// Usage is what the provider's API reported for one response.
type Usage struct {
	Input         int
	Output        int
	CacheCreation int
	CacheRead     int
	Reasoning     int
	// Total is the reported context size when the format states it directly
	// (Codex last_token_usage.total_tokens); 0 means sum the fields.
	Total int
}

// ContextTokens is the size of the context this usage describes: the prompt
// the model read plus what it wrote.
func (u Usage) ContextTokens() int {
	if u.Total > 0 {
		return u.Total
	}
	return u.Input + u.CacheCreation + u.CacheRead + u.Output
}

// A Message groups the records of one model-visible message.
type Message struct {
	ID        string
	Role      Role
	Origin    Origin
	Model     string
	Timestamp time.Time
	// Records are indexes into Transcript.Records, in order. Claude Code
	// splits one response over several lines sharing message.id: they form
	// one Message.
	Records []int
	Parts   []Part
	// Usage is the API-reported usage after this message, if the transcript
	// recorded it.
	Usage *Usage
	// Pinned messages survive every strategy but explicit removal.
	Pinned bool
}

// A Turn starts at a real user prompt and runs to the next one: messages
// [Start, End) of Transcript.Messages. Messages before the first prompt
// (system, injected context) form turn 0 when present.
type Turn struct {
	Start, End int
}

// Meta is what a transcript says about itself.
type Meta struct {
	SessionID string
	Cwd       string
	Model     string
	Title     string
	// ForkedFrom is the session this one was forked from, if any.
	ForkedFrom string
	// ContextWindow is the window the agent reported (Codex model_context_window); 0 if unknown.
	ContextWindow int
	// AgentVersion is the writing agent's version string, when recorded.
	AgentVersion string
}

// A Problem is a record we could not use; the transcript stays usable.
type Problem struct {
	Record int
	// Line is the 1-based line number for line-oriented formats, else 0.
	Line    int
	Message string
}

// Transcript is a parsed transcript. Treat it as immutable once returned by
// a codec: incremental parsing returns a new Transcript that may share
// backing arrays with the old one.
type Transcript struct {
	Format Format
	Meta   Meta
	// Records are every on-disk record, in file order.
	Records []Record
	// Messages is what the model sees now, in order.
	Messages []Message
	Turns    []Turn
	// Problems lists malformed or unusable records (Skipped counts them).
	Problems []Problem
	Skipped  int
	// Size is the number of source bytes consumed (complete records only;
	// a partial last line is not consumed and waits for more data).
	Size int64
	// Frame holds bytes that belong to no record (a JSON document's
	// opening and closing brackets, separators) so Write can reproduce
	// the file exactly. Codecs define its meaning.
	Frame any
	// State is codec-private incremental parsing state.
	State any
	// Kept is set by incremental parsing (format.Appender.Append): how
	// many leading Messages are exactly those of the transcript appended
	// to, unchanged, so figures over them (token counts, Stats) carry
	// forward. 0 after a full parse or from a codec that does not track it.
	Kept int
}
