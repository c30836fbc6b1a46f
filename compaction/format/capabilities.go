package format

import (
	"slices"

	"github.com/compactd/compactd/compaction/transcript"
)

// What a format's API and its agent make of a conversation, declared by
// its codec, so that the strategies and the gauge ask the codec rather
// than name formats.

// Rules are what a format's API requires of the conversation sent to it:
// what a compaction's output must keep to be accepted.
type Rules struct {
	// Alternation: the API rejects two adjacent messages of the same
	// role (Gemini wants user and model turns to alternate; Anthropic's
	// Messages API combines them and the OpenAI APIs accept them).
	Alternation bool
	// AdjacentResults: a tool's result must be in the message right
	// after its call (Anthropic tool_result, Gemini functionResponse).
	AdjacentResults bool
	// ReasoningBound: a reasoning item sent without the item that
	// followed it is rejected (OpenAI Responses).
	ReasoningBound bool
}

// A Ruler is a codec whose format's API has Rules; the others have none.
type Ruler interface {
	Rules() Rules
}

// RulesOf are the rules of format f (none when its codec declares none).
func RulesOf(f transcript.Format) Rules {
	if c, ok := Lookup(f); ok {
		if r, ok := c.(Ruler); ok {
			return r.Rules()
		}
	}
	return Rules{}
}

// ContextFacts are what a transcript's non-message records say of the
// context its agent sends beside the messages.
type ContextFacts struct {
	// Deferred are tools whose names the model sees and whose
	// definitions are loaded on demand; Instructions the MCP servers
	// whose instructions are sent.
	Deferred     map[string]bool
	Instructions map[string]bool
	// Base is the base instructions' count, BaseText whether the
	// transcript holds them.
	Base     int
	BaseText bool
	// Dynamic names tools the session added.
	Dynamic []string
}

// Clone returns a copy sharing nothing with f.
func (f ContextFacts) Clone() ContextFacts {
	out := f
	out.Deferred = cloneSet(f.Deferred)
	out.Instructions = cloneSet(f.Instructions)
	out.Dynamic = append([]string(nil), f.Dynamic...)
	return out
}

func cloneSet(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// An Outsider is a codec that names what its agent sends beside the
// transcript, for the gauge's breakdown.
type Outsider interface {
	Outside() string
}

// OutsideOf names what the agent of format f sends beside its transcript:
// its codec's Outside, else the system prompt and tool definitions every
// agent sends.
func OutsideOf(f transcript.Format) string {
	if c, ok := Lookup(f); ok {
		if o, ok := c.(Outsider); ok {
			return o.Outside()
		}
	}
	return "system prompt, tool definitions"
}

// A ContextReader is a codec whose transcripts record what their agent
// sends beside the messages.
type ContextReader interface {
	// ContextRecord reports whether rec says something of that context:
	// it is asked of every record, so it decides from rec.Type alone.
	ContextRecord(rec *transcript.Record) bool
	// ReadContext adds what rec says to facts; countText counts a text's
	// tokens (nil: about four bytes a token).
	ReadContext(rec *transcript.Record, facts *ContextFacts, countText func(string) int)
}

// ContextReaderOf is the ContextReader of format f, nil when its codec is
// none.
func ContextReaderOf(f transcript.Format) ContextReader {
	if c, ok := Lookup(f); ok {
		if r, ok := c.(ContextReader); ok {
			return r
		}
	}
	return nil
}

// A Filer is a codec whose files are named so that an editor can tell
// them from other files before reading them: Files are doublestar globs
// matched against a whole path ("**/*.jsonl"). Editors attach to the
// files they match (the server advertises FilePatterns); the watcher and
// Detect go by content.
type Filer interface {
	Files() []string
}

// FilePatterns are the registered codecs' Files, sorted, each once.
func FilePatterns() []string {
	mu.RLock()
	defer mu.RUnlock()
	var out []string
	for _, c := range codecs {
		if f, ok := c.(Filer); ok {
			for _, p := range f.Files() {
				if !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// A Loader is a codec whose agent rebuilds a session on resume by rules of
// its own: what it sends the model is not simply the records in file order
// (Claude Code follows a parentUuid chain and joins back rows that hang off
// it). The invariant check holds a fork to what Load rebuilds, not to the
// codec's own parse, so that the rules are the agent's.
type Loader interface {
	// Load returns the messages the agent sends the model when it resumes
	// t (parsed by the same codec), rebuilt the way the agent's loader
	// does, consecutive messages of one role combined as the API combines
	// them. Parts keep their Ref into t. A transcript the codec did not
	// parse is read as it is.
	Load(t *transcript.Transcript) ([]transcript.Message, error)
}
