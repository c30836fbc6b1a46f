package claude

// The two-pass decoding decodeLine replaced, kept as the oracle it must
// agree with: the record decoded with Message as a json.RawMessage, then
// the message, then its content.

import (
	"encoding/json"
	"reflect"
	"testing"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/compactd/compactd/compaction/format/anthropic"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// apiMessage is a record's message as the two passes decoded it.
type apiMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *apiUsage       `json:"usage"`
}

// FuzzDecodeLineAgreesWithTwoPasses holds decodeLine, which decodes a
// record's message and content as it reads them, to the two passes it
// replaced (held to encoding/json by FuzzDecodeAgreesWithEncodingJSON):
// the same node, message, record and line, or both an error.
func FuzzDecodeLineAgreesWithTwoPasses(f *testing.F) {
	formattest.SeedFiles(f, "testdata/*.jsonl", true)
	for _, s := range []string{
		`{"type":"user","message":null}`, `{"type":"user","message":5}`, `{"type":"user","message":"hi"}`,
		`{"type":"user","message":{"role":"user","content":5}}`, `{"type":"user","message":{"role":"user","content":{"a":1}}}`,
		`{"type":"user","message":{"role":"user","content":null}}`, `{"type":"user","message":{"role":"user","content":"a\ud800b"}}`,
		`{"type":"assistant","message":{"role":"assistant","model":5,"content":[{"type":"text","text":"x"}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":"7"}}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"a"}],"Content":[{"type":"text","text":"b"}]}}`,
		`{"type":"assistant","message":{"content":[1,{"type":5},{"type":"tool_use","id":"t","name":"n","input":{"a" : 1}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"r"}]}]}}`,
		`{"type":"user","Message":{"role":"user","content":"a"},"message":{"role":"user","content":"b"}}`,
		`{"type":"user","message":{"role":"user","content":"a"},"message":7}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"}`, `{"type":"user","message":{"content":[}}`,
		`{"type":"user","message":{"usage":[1,2],"content":"x"}}`, "{\"type\":\"user\",\"message\":{\"content\":\"a\xffb\"}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		n, rec, l, err := decodeLine(raw, 3)
		wantN, wantRec, wantL, wantErr := decodeLineTwoPass(raw, 3)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%q: error %v, two passes %v", raw, err, wantErr)
		}
		if err != nil {
			if n.kind != wantN.kind || rec.Kind != wantRec.Kind {
				t.Fatalf("%q: kind %v, two passes %v", raw, n.kind, wantN.kind)
			}
			return
		}
		if !reflect.DeepEqual(n, wantN) {
			t.Fatalf("%q:\nnode       %+v\ntwo passes %+v\nmessage    %+v\ntwo passes %+v", raw, n, wantN, n.msg, wantN.msg)
		}
		if !reflect.DeepEqual(rec, wantRec) {
			t.Fatalf("%q: record %+v, two passes %+v", raw, rec, wantRec)
		}
		wl := *wantL
		wl.Message = nil // the message is in the node
		if !reflect.DeepEqual(*l, wl) {
			t.Fatalf("%q: line %+v, two passes %+v", raw, *l, wl)
		}
	})
}

// decodeLineTwoPass is decodeLine as it was.
func decodeLineTwoPass(raw []byte, idx int) (node, transcript.Record, *line, error) {
	rec := transcript.Record{Raw: raw}
	var l line
	if err := jsonv1.Unmarshal(raw, &l); err != nil {
		rec.Kind = transcript.RecordMalformed
		rec.Err = err.Error()
		return node{kind: transcript.RecordMalformed}, rec, nil, err
	}
	rec.ID = l.UUID
	rec.Type = l.Type
	n := node{typ: l.Type, subtype: l.Subtype, uuid: l.UUID, sidechain: l.IsSidechain, meta: l.IsMeta, source: l.SourceToolAssistantUUID}
	if l.ParentUUID != nil {
		n.parent, n.hasParent = *l.ParentUUID, true
	}
	if l.LogicalParentUUID != nil {
		n.logicalParent = *l.LogicalParentUUID
	}
	switch l.Type {
	case "user", "assistant":
		n.kind = transcript.RecordMessage
		n.conversation = l.UUID != ""
		n.msg = decodeMessageTwoPass(&l, idx)
		if n.msg == nil {
			n.kind = transcript.RecordMeta
		}
	case "system":
		n.conversation = l.UUID != ""
		n.kind = transcript.RecordMeta
		if l.Subtype == "compact_boundary" || l.Subtype == "microcompact_boundary" {
			n.kind = transcript.RecordMarker
		}
		if l.Subtype == "compact_boundary" && l.CompactMetadata != nil {
			n.kept = preservationOf(l.CompactMetadata.PreservedMessages, l.CompactMetadata.PreservedSegment)
		}
	case "attachment":
		n.conversation = l.UUID != ""
		n.kind = transcript.RecordMeta
		if text := attachmentText(l.Attachment); text != "" {
			// Claude Code renders an attachment from its structured fields,
			// so a fork can keep or drop one but not rewrite its text:
			// Signed keeps strategies from editing it.
			n.kind = transcript.RecordMessage
			n.msg = &transcript.Message{ID: l.UUID, Role: transcript.RoleUser, Origin: transcript.OriginInjected,
				Timestamp: parseTime(l.Timestamp), Records: []int{idx},
				Parts: []transcript.Part{{Kind: transcript.PartAttachment, Text: text, Signed: true, Ref: transcript.Ref{Record: idx, Block: -1}}}}
		}
	case "progress":
		n.conversation = l.UUID != ""
		n.kind = transcript.RecordMeta
	case "summary", "file-history-snapshot", "queue-operation", "custom-title", "ai-title", "agent-name",
		"last-prompt", "permission-mode", "mode", "pr-link", "worktree-state", "bridge-session", "frame-link":
		n.kind = transcript.RecordMeta
		if l.Type == "last-prompt" {
			n.leaf, n.pinned = l.LeafUUID, l.Explicit || l.Rewound
		}
	default:
		n.kind = transcript.RecordUnknown
		n.conversation = l.UUID != "" && (l.ParentUUID != nil)
	}
	rec.Kind = n.kind
	return n, rec, &l, nil
}

func decodeMessageTwoPass(l *line, idx int) *transcript.Message {
	var am apiMessage
	if len(l.Message) == 0 || jsonv1.Unmarshal(l.Message, &am) != nil {
		return nil
	}
	m := &transcript.Message{ID: l.UUID, Timestamp: parseTime(l.Timestamp), Records: []int{idx}}
	if l.Type == "assistant" {
		m.Role, m.Origin, m.Model = transcript.RoleAssistant, transcript.OriginAgent, am.Model
		if am.ID != "" {
			m.ID = am.ID
		}
		// A "<synthetic>" message is Claude Code's own (an API error, an
		// interruption): its all-zero usage reports no context.
		if u := am.Usage; u != nil && am.Model != "<synthetic>" {
			m.Usage = &transcript.Usage{Input: u.Input, Output: u.Output, CacheCreation: u.CacheCreation, CacheRead: u.CacheRead}
		}
	} else {
		m.Role, m.Origin = transcript.RoleUser, transcript.OriginHuman
	}
	// Claude Code logs the Messages API's content as sent or received;
	// content that is neither a string nor blocks leaves the message empty.
	m.Parts, _ = anthropic.DecodeContent(am.Content, idx)
	if m.Role == transcript.RoleUser {
		m.Origin = userOrigin(l, m.Parts)
	}
	return m
}
