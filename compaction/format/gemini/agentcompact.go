package gemini

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.CompactionReader = Codec{}

// snapshotTag opens the summary Gemini CLI's chat compression writes (its
// ChatCompressionService asks the model for a <state_snapshot>).
const snapshotTag = "<state_snapshot>"

// snapshotWithin is how far into a $set's messages the snapshot is looked
// for: Gemini CLI puts it after the session context message.
const snapshotWithin = 4

// AgentCompactions implements format.CompactionReader: Gemini CLI's chat
// compression (automatic at model.compressionThreshold, or /compress)
// writes no record of its own: it replaces the conversation with a $set
// of messages whose user message opens with a <state_snapshot>, followed
// by the model's "Got it." and the last 30 % kept. Every resume writes
// the loaded history back as a $set too (after a $set of the session
// context alone), the same snapshot in it: a $set is a compaction only
// when its snapshot is new to the file. Recordings in the legacy JSON
// document carry none.
func (Codec) AgentCompactions(t *transcript.Transcript) []format.AgentCompaction {
	st, ok := t.State.(*lineState)
	if !ok {
		return nil
	}
	var out []format.AgentCompaction
	seen := map[string]bool{} // the snapshots of the $set lines so far
	for i := range t.Records {
		r := &t.Records[i]
		if r.Type != "$set" {
			continue
		}
		snapshot, elem := st.snapshotOf(i)
		if snapshot == "" || seen[snapshot] {
			continue
		}
		seen[snapshot] = true
		var line struct {
			Set struct {
				Messages    []json.RawMessage `json:"messages"`
				LastUpdated string            `json:"lastUpdated"`
			} `json:"$set"`
		}
		_ = json.Unmarshal(r.Raw, &line)
		c := format.AgentCompaction{Record: i, Kind: "chat_compression", Summary: snapshot,
			Timestamp: parseTime(line.Set.LastUpdated), TokensBefore: st.usageBefore(i)}
		for e := elem; e < len(line.Set.Messages); e++ {
			c.After = append(c.After, st.msgs[msgKey{i, e}]...)
		}
		out = append(out, c)
	}
	return out
}

// snapshotOf returns the <state_snapshot> text of $set line rec's
// messages and its element; "" when it has none.
func (s *lineState) snapshotOf(rec int) (snapshot string, elem int) {
	for e := 0; e < snapshotWithin; e++ {
		for _, m := range s.msgs[msgKey{rec, e}] {
			if isSnapshot(&m) {
				return m.Parts[0].Text, e
			}
		}
	}
	return "", 0
}

// usageBefore is the context size the last usage recorded before record
// rec reports; 0 when none does.
func (s *lineState) usageBefore(rec int) int {
	best, size := -1, 0
	for k, msgs := range s.msgs {
		if k.elem != -1 || k.rec >= rec || k.rec < best {
			continue
		}
		for _, m := range msgs {
			if m.Usage != nil {
				best, size = k.rec, m.Usage.ContextTokens()
			}
		}
	}
	return size
}

// BeforeCompaction implements format.CompactionReader: the recording's
// lines before compaction i's $set, as a new session (its metadata naming
// the new id, every other line as it is): what Gemini CLI loads on resume
// is the conversation it had just before it compressed.
func (c Codec) BeforeCompaction(t *transcript.Transcript, i int, opts format.ForkOptions) ([]byte, error) {
	list := c.AgentCompactions(t)
	if i < 0 || i >= len(list) {
		return nil, fmt.Errorf("no agent compaction %d in this session (it has %d)", i+1, len(list))
	}
	head, err := c.Parse(jsonl.Write(&jsonl.Frame{}, t.Records[:list[i].Record]))
	if err != nil {
		return nil, fmt.Errorf("the recording before its compression: %w", err)
	}
	return c.Renew(head, opts)
}

// isSnapshot reports whether m is the summary of a chat compression: a
// user message opening with a <state_snapshot>.
func isSnapshot(m *transcript.Message) bool {
	return m.Role == transcript.RoleUser && len(m.Parts) > 0 && m.Parts[0].Kind == transcript.PartText &&
		strings.HasPrefix(strings.TrimSpace(m.Parts[0].Text), snapshotTag)
}
