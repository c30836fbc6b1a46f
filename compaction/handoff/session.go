package handoff

import (
	"fmt"
	"time"

	"github.com/compactd/compactd/compaction/transcript"
)

// A Session is a conversation in neutral form, ready for a codec to write
// as a new session of its agent. Its messages alternate, user first and
// assistant last; every tool call of an assistant message is answered by
// a result at the start of the message after it, in call order; parts
// are never empty.
type Session struct {
	// ID is the new session's id, by the target agent's rule.
	ID string
	// Cwd is the folder the session works in; Model the target's model
	// name, written where the format records one; Title its title where
	// the format has one; Created when it is written.
	Cwd, Model, Title string
	Created           time.Time
	Messages          []Message
}

// A Message is one turn of one side.
type Message struct {
	Role  transcript.Role // RoleUser or RoleAssistant
	Parts []Part
}

// A Part is one piece of a message.
type Part struct {
	// Kind is PartText, PartToolCall, PartToolResult or PartImage.
	Kind transcript.PartKind
	// Text is a text's words, a result's output, or a freeform call's
	// input.
	Text string
	// CallID pairs a call and its result; Tool is the target's tool name
	// (on results too).
	CallID, Tool string
	// Args are a function call's arguments, a JSON object.
	Args string
	// Freeform marks a call of a custom tool whose input is Text (Codex's
	// apply_patch).
	Freeform bool
	IsError  bool
	// MIME and Data are an image's type and bytes.
	MIME string
	Data []byte
}

// Timestamp is when message i was written, spread a millisecond apart
// from Created so that agents ordering by time keep the order.
func (s *Session) Timestamp(i int) time.Time {
	return s.Created.Add(time.Duration(i) * time.Millisecond).UTC()
}

// Check reports the first way s breaks its invariants: what every codec
// relies on to write a session its agent's API accepts.
func (s *Session) Check() error {
	if len(s.Messages) == 0 {
		return fmt.Errorf("the session has no messages")
	}
	for i, m := range s.Messages {
		want := transcript.RoleUser
		if i%2 == 1 {
			want = transcript.RoleAssistant
		}
		if m.Role != want {
			return fmt.Errorf("message %d is %s, want %s (roles alternate, user first)", i, m.Role, want)
		}
		if len(m.Parts) == 0 {
			return fmt.Errorf("message %d is empty", i)
		}
		var calls []string
		for _, p := range m.Parts {
			if p.Kind == transcript.PartToolCall {
				calls = append(calls, p.CallID)
			}
		}
		if len(calls) == 0 {
			continue
		}
		if i+1 >= len(s.Messages) {
			return fmt.Errorf("message %d's tool calls are never answered", i)
		}
		next := s.Messages[i+1].Parts
		for k, id := range calls {
			if k >= len(next) || next[k].Kind != transcript.PartToolResult || next[k].CallID != id {
				return fmt.Errorf("tool call %s of message %d is not answered first thing in the message after it", id, i)
			}
		}
	}
	if s.Messages[len(s.Messages)-1].Role != transcript.RoleAssistant {
		return fmt.Errorf("the session ends with a user message")
	}
	return nil
}
