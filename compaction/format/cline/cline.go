package cline

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/anthropic"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/format/internal/newid"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() { format.Register(Codec{}) }

// FileName is the name Cline, Roo Code and Kilo give the API history.
const FileName = "api_conversation_history.json"

// Codec reads and writes Cline / Roo Code / Kilo api_conversation_history.json.
type Codec struct{}

// Format implements format.Codec.
func (Codec) Format() transcript.Format { return transcript.FormatCline }

type extras struct {
	Ts        *float64 `json:"ts"`
	ModelInfo *struct {
		ModelID string `json:"modelId"`
	} `json:"modelInfo"`
	Metrics *struct {
		Tokens *struct {
			Prompt     int `json:"prompt"`
			Completion int `json:"completion"`
			Cached     int `json:"cached"`
		} `json:"tokens"`
	} `json:"metrics"`
	IsSummary          bool   `json:"isSummary"`
	CondenseID         string `json:"condenseId"`
	CondenseParent     string `json:"condenseParent"`
	TruncationID       string `json:"truncationId"`
	TruncationParent   string `json:"truncationParent"`
	IsTruncationMarker bool   `json:"isTruncationMarker"`
}

// toolResultHeader matches Cline's plain-text tool results:
// "[read_file for 'src/a.go'] Result:".
var toolResultHeader = regexp.MustCompile(`^\[([A-Za-z0-9_:.-]+)(?: for '[^\n]*?')?\] Result:`)

const (
	envOpen  = "<environment_details>"
	envClose = "</environment_details>"
)

// Parse implements format.Codec. Messages Roo condensed or truncated away
// (condenseParent/truncationParent naming a summary or marker that
// exists) stay records but leave the model-visible messages.
func (Codec) Parse(src []byte) (*transcript.Transcript, error) {
	t, _, err := anthropic.Scan(src, transcript.FormatCline)
	if err != nil {
		return nil, err
	}
	ex := make([]extras, len(t.Records))
	condensed, truncated := map[string]bool{}, map[string]bool{}
	for i := range t.Records {
		r := &t.Records[i]
		role, isObject := anthropic.RoleOf(r.Raw)
		if !isObject {
			anthropic.Malformed(t, i, "message is not a JSON object")
			continue
		}
		r.Type = role
		if json.Unmarshal(r.Raw, &ex[i]) != nil {
			// Odd extras do not make the message unreadable; only its
			// Cline metadata is lost.
			ex[i] = extras{}
		}
		if ex[i].IsSummary && ex[i].CondenseID != "" {
			condensed[ex[i].CondenseID] = true
		}
		if ex[i].IsTruncationMarker && ex[i].TruncationID != "" {
			truncated[ex[i].TruncationID] = true
		}
	}
	for i := range t.Records {
		r := &t.Records[i]
		if r.Kind == transcript.RecordMalformed {
			continue
		}
		if r.Type != "user" && r.Type != "assistant" {
			r.Kind = transcript.RecordUnknown
			continue
		}
		x := &ex[i]
		if condensed[x.CondenseParent] || truncated[x.TruncationParent] {
			continue // no longer sent to the model
		}
		m, err := anthropic.DecodeMessage(r.Raw, i)
		if err != nil {
			anthropic.Malformed(t, i, err.Error())
			continue
		}
		if m.Role == transcript.RoleUser {
			m.Parts = splitUserText(m.Parts)
			m.Origin = userOrigin(m.Parts)
		}
		if x.Ts != nil {
			m.Timestamp = time.UnixMilli(int64(*x.Ts)).UTC()
		}
		if x.ModelInfo != nil && x.ModelInfo.ModelID != "" {
			m.Model = x.ModelInfo.ModelID
			t.Meta.Model = m.Model
		}
		if x.Metrics != nil && x.Metrics.Tokens != nil {
			tk := x.Metrics.Tokens
			m.Usage = &transcript.Usage{Input: tk.Prompt, Output: tk.Completion, CacheRead: tk.Cached}
		}
		switch {
		case x.IsSummary:
			m.Origin = transcript.OriginSummary
		case x.IsTruncationMarker:
			m.Origin = transcript.OriginInjected
		}
		t.Messages = append(t.Messages, m)
	}
	t.Turns = transcript.BuildTurns(t.Messages)
	return t, nil
}

// splitUserText recognizes Cline's plain-text tool results and cuts
// <environment_details> out of text parts as attachments, so strategies
// can strip them. The pieces of one block concatenate to its text.
func splitUserText(parts []transcript.Part) []transcript.Part {
	var out []transcript.Part
	for _, p := range parts {
		if p.Kind != transcript.PartText {
			out = append(out, p)
			continue
		}
		for _, piece := range splitEnvironment(p.Text) {
			q := p
			q.Text = piece
			if strings.HasPrefix(piece, envOpen) {
				q.Kind = transcript.PartAttachment
			} else if m := toolResultHeader.FindStringSubmatch(piece); m != nil {
				q.Kind, q.ToolName = transcript.PartToolResult, m[1]
				q.IsError = strings.Contains(piece[:min(len(piece), 200)], "Error")
			}
			out = append(out, q)
		}
	}
	return out
}

// splitEnvironment cuts s into text and <environment_details>…</…>
// pieces (a piece's trailing whitespace stays with it).
func splitEnvironment(s string) []string {
	var out []string
	for {
		i := strings.Index(s, envOpen)
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], envClose)
		if j < 0 {
			break
		}
		end := i + j + len(envClose)
		if i > 0 {
			out = append(out, s[:i])
		}
		out = append(out, s[i:end])
		s = s[end:]
	}
	if s != "" || len(out) == 0 {
		out = append(out, s)
	}
	return out
}

func userOrigin(parts []transcript.Part) transcript.Origin {
	injectedOnly := len(parts) > 0
	for _, p := range parts {
		if p.Kind == transcript.PartToolResult {
			return transcript.OriginToolResult
		}
		if p.Kind != transcript.PartAttachment && strings.TrimSpace(p.Text) != "" {
			injectedOnly = false
		}
	}
	if injectedOnly {
		return transcript.OriginInjected
	}
	return transcript.OriginHuman
}

// Write implements format.Codec.
func (Codec) Write(t *transcript.Transcript) ([]byte, error) { return anthropic.WriteFrame(t) }

// Fork implements format.Codec: a new history holding the view. A summary
// is its own user message marked the way Roo marks its condense summaries
// (isSummary, condenseId); nothing in the kept history is re-marked.
// Messages the source had already condensed away travel with the summary
// that hides them. The summary's condenseId is opts.SessionID, or random.
func (Codec) Fork(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	ts := time.Now()
	if opts.Timestamp != "" {
		if p, err := time.Parse(time.RFC3339Nano, opts.Timestamp); err == nil {
			ts = p
		}
	}
	condenseID := opts.SessionID
	if condenseID == "" {
		condenseID = newid.Hex()
	}
	msg := func(role, text string, summary bool) ([]byte, error) {
		o := &jsonx.Object{}
		_ = o.Set("role", role)
		o.SetRaw("content", jsonx.Array([]json.RawMessage{anthropic.TextBlock(text)}))
		_ = o.Set("ts", ts.UnixMilli())
		if summary {
			_ = o.Set("isSummary", true)
			_ = o.Set("condenseId", condenseID)
		}
		return o.Bytes(), nil
	}
	return anthropic.ForkDocument(v, anthropic.Dialect{
		Summary: func(text string) ([]byte, error) { return msg("user", text, true) },
		Ack:     func(role string) ([]byte, error) { return msg(role, anthropic.AckText(role), false) },
		// metrics.tokens is the usage the gauge calibrates on; past the
		// unchanged prefix it measured a context the fork no longer has.
		DropUsage: func(raw []byte) ([]byte, error) {
			o, err := jsonx.ParseObject(raw)
			if err != nil || !o.Has("metrics") {
				return nil, err
			}
			o.Delete("metrics")
			return o.Bytes(), nil
		},
	})
}

// Detect implements format.Codec: a bare array of Anthropic MessageParams
// carrying Cline/Roo extras (ts, modelInfo, metrics, condense fields). The
// file name is a tiebreaker only.
func (Codec) Detect(name string, head []byte) int {
	ev := anthropic.Inspect(head)
	byName := filepath.Base(name) == FileName
	switch {
	case ev.Foreign || ev.Wrapper != nil:
		return 0
	case ev.Cline > 0 && byName:
		return 95
	case ev.Cline > 0:
		return 90
	case byName && ev.Records > 0:
		return 70
	}
	return 0
}
