package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

var _ format.CompactionReader = Codec{}

// AgentCompactions implements format.CompactionReader: every compaction
// opencode (and Kilo) applied — a user message holding a compaction part
// (auto: at the window's edge; else /compact) answered by a finished,
// error-free assistant message with summary: true, the one filterCompacted
// starts the history at. One with no conversation before it is where a
// compactd fork begins: the history it replaced is not in the export.
func (c Codec) AgentCompactions(t *transcript.Transcript) []format.AgentCompaction {
	if _, ok := t.Frame.(*frame); !ok {
		return nil
	}
	wires := make([]*wireMessage, len(t.Records))
	for i, r := range t.Records {
		if r.Kind != transcript.RecordMessage {
			continue
		}
		var w wireMessage
		if json.Unmarshal(r.Raw, &w) == nil {
			wires[i] = &w
		}
	}
	var out []format.AgentCompaction
	conversation := false
	for i, w := range wires {
		if w == nil {
			continue
		}
		part, ok := compactionPart(w)
		if w.Info.Role != "user" || !ok {
			conversation = true
			continue
		}
		j := summaryOf(wires, i)
		if j < 0 {
			continue // not answered (yet, or by an error): nothing replaced
		}
		if !conversation {
			continue
		}
		s := wires[j]
		ac := format.AgentCompaction{Record: i, Kind: "compaction", Trigger: "manual",
			Timestamp: time.UnixMilli(w.Info.Time.Created).UTC(), After: decode(s, j, nil)}
		if part.Auto {
			ac.Trigger = "auto"
		}
		if tk := s.Info.Tokens; tk != nil {
			// What the summarizer was sent: the conversation it replaced.
			ac.TokensBefore = tk.Input + tk.Cache.Read + tk.Cache.Write
		}
		var text []string
		for _, m := range ac.After {
			for _, p := range m.Parts {
				if p.Kind == transcript.PartText {
					text = append(text, p.Text)
				}
			}
		}
		ac.Summary = strings.Join(text, "\n")
		out = append(out, ac)
	}
	return out
}

// summaryOf is the index of the message that answers the compaction
// message at i with its summary, -1 when none does.
func summaryOf(wires []*wireMessage, i int) int {
	for j := i + 1; j < len(wires); j++ {
		s := wires[j]
		if s != nil && s.Info.Role == "assistant" && isTrue(s.Info.Summary) && s.Info.ParentID == wires[i].Info.ID && s.Info.Finish != "" && !hasError(s.Info.Error) {
			return j
		}
	}
	return -1
}

// BeforeCompaction implements format.CompactionReader: the conversation
// the model had before compaction i, as a new export to import — the
// messages before the compaction message, read as opencode reads them (an
// earlier compaction's summary and what followed it), under a new
// session id and fresh message ids, as a fork is written.
func (c Codec) BeforeCompaction(t *transcript.Transcript, i int, opts format.ForkOptions) ([]byte, error) {
	list := c.AgentCompactions(t)
	fr, ok := t.Frame.(*frame)
	if !ok || i < 0 || i >= len(list) {
		return nil, fmt.Errorf("no agent compaction %d in this session (it has %d)", i+1, len(list))
	}
	info, ok := fr.doc.Member("info")
	if !ok {
		return nil, fmt.Errorf("the export has no session info")
	}
	var b bytes.Buffer
	b.WriteString(`{"info":`)
	b.Write(fr.src[info.Start:info.End])
	b.WriteString(`,"messages":[`)
	for k, r := range t.Records[:list[i].Record] {
		if k > 0 {
			b.WriteByte(',')
		}
		b.Write(r.Raw)
	}
	b.WriteString("]}")
	prefix, err := c.Parse(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("the session before compaction %d: %w", i+1, err)
	}
	out, err := c.Fork(transcript.NewView(prefix), opts)
	if err != nil {
		return nil, err
	}
	return retitle(out, fmt.Sprintf(" (before its compaction %d)", i+1))
}

// retitle replaces the "(compacted)" a fork's title gets with suffix: the
// session before a compaction is not compacted.
func retitle(export []byte, suffix string) ([]byte, error) {
	doc, err := jsonx.ScanArrayDocument(export, "messages")
	if err != nil {
		return nil, err
	}
	sp, ok := doc.Member("info")
	if !ok {
		return export, nil
	}
	o, err := jsonx.ParseObject(export[sp.Start:sp.End])
	if err != nil {
		return nil, err
	}
	var title string
	_ = json.Unmarshal(o.Get("title"), &title)
	_ = o.Set("title", strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(title), "(compacted)"))+suffix)
	out := append([]byte(nil), export[:sp.Start]...)
	out = append(out, o.Bytes()...)
	return append(out, export[sp.End:]...), nil
}
