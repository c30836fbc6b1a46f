package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// lineCodec is a minimal append-only JSONL format for these tests, one
// message per line: {"session":…,"role":…,"text":…}. It exercises the jobs
// without depending on a production codec that is still being written;
// it follows the Codec contract (exact Raw bytes, partial last line left
// unconsumed, untouched records forked byte for byte).
type lineCodec struct{}

const lineFormat transcript.Format = "test-jsonl"

type lineRecord struct {
	Session string `json:"session"`
	Role    string `json:"role"`
	Text    string `json:"text"`
	Summary bool   `json:"summary,omitempty"`
}

func init() { format.Register(lineCodec{}) }

func (lineCodec) Format() transcript.Format { return lineFormat }

func (lineCodec) Detect(name string, head []byte) int {
	if strings.HasSuffix(name, ".tjsonl") {
		return 100
	}
	return 0
}

func (c lineCodec) Parse(src []byte) (*transcript.Transcript, error) {
	return c.Append(&transcript.Transcript{Format: lineFormat}, src)
}

func (lineCodec) Append(prev *transcript.Transcript, tail []byte) (*transcript.Transcript, error) {
	t := *prev
	t.Records = append([]transcript.Record(nil), prev.Records...)
	t.Messages = append([]transcript.Message(nil), prev.Messages...)
	off := prev.Size
	for {
		i := bytes.IndexByte(tail, '\n')
		if i < 0 {
			break
		}
		line := tail[:i]
		rec := transcript.Record{Start: off, End: off + int64(i), Raw: line}
		var lr lineRecord
		if err := json.Unmarshal(line, &lr); err != nil || lr.Role == "" {
			rec.Kind = transcript.RecordMalformed
			rec.Err = fmt.Sprint(err)
			t.Problems = append(t.Problems, transcript.Problem{Record: len(t.Records), Message: rec.Err})
			t.Skipped++
		} else {
			if t.Meta.SessionID == "" {
				t.Meta.SessionID = lr.Session
			}
			origin := transcript.OriginAgent
			if lr.Role == "user" {
				origin = transcript.OriginHuman
			}
			if lr.Summary {
				origin = transcript.OriginSummary
			}
			t.Messages = append(t.Messages, transcript.Message{
				Role: transcript.Role(lr.Role), Origin: origin, Records: []int{len(t.Records)},
				Parts: []transcript.Part{{Kind: transcript.PartText, Text: lr.Text, Ref: transcript.Ref{Record: len(t.Records), Block: -1}}},
			})
		}
		t.Records = append(t.Records, rec)
		off += int64(i) + 1
		tail = tail[i+1:]
	}
	t.Size = off
	t.Turns = transcript.BuildTurns(t.Messages)
	return &t, nil
}

func (lineCodec) Write(t *transcript.Transcript) ([]byte, error) {
	var b bytes.Buffer
	for _, r := range t.Records {
		b.Write(r.Raw)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

func (lineCodec) Fork(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	var b bytes.Buffer
	write := func(lr lineRecord) {
		j, _ := json.Marshal(lr)
		b.Write(j)
		b.WriteByte('\n')
	}
	si := 0
	for i, m := range v.Messages {
		for ; si < len(v.Summaries) && v.Summaries[si].Before == i; si++ {
			write(lineRecord{Session: opts.SessionID, Role: "user", Text: v.Summaries[si].Text, Summary: true})
		}
		raw := v.Source.Records[m.Records[0]].Raw
		var lr lineRecord
		json.Unmarshal(raw, &lr)
		if lr.Session == opts.SessionID && !m.Parts[0].Changed {
			b.Write(raw)
			b.WriteByte('\n')
			continue
		}
		lr.Session, lr.Text = opts.SessionID, m.Parts[0].Text
		write(lr)
	}
	for ; si < len(v.Summaries); si++ {
		write(lineRecord{Session: opts.SessionID, Role: "user", Text: v.Summaries[si].Text, Summary: true})
	}
	return b.Bytes(), nil
}

// dropOldTurns is a small real pipeline for these tests: keep the last
// KeepLast turns (default half) and summarize the rest in one line.
func dropOldTurns(ctx context.Context, t *transcript.Transcript, c *tokens.Counter, opts strategy.Options) (*transcript.View, *strategy.Report, error) {
	v := transcript.NewView(t)
	keep := (len(t.Turns) + 1) / 2
	if opts.KeepLast != nil && *opts.KeepLast > 0 {
		keep = *opts.KeepLast
	}
	count := func(msgs []transcript.Message) int {
		n := 0
		for i := range msgs {
			n += c.Message(&msgs[i])
		}
		return n
	}
	rep := &strategy.Report{TokensBefore: count(v.Messages)}
	if cut := len(t.Turns) - keep; cut > 0 {
		from := t.Turns[cut].Start
		rep.Steps = append(rep.Steps, strategy.Step{Strategy: "turn-window", EventsRemoved: from})
		v.Messages = v.Messages[from:]
		v.Cut = true
		v.Summaries = []transcript.Summary{{Text: fmt.Sprintf("%d earlier turns elided", cut), Before: 0, ToTurn: cut}}
	}
	rep.TokensAfter = count(v.Messages)
	if len(rep.Steps) > 0 {
		rep.Steps[0].TokensSaved = rep.TokensBefore - rep.TokensAfter
	}
	rep.Retention = strategy.Retention{Score: 1}
	return v, rep, nil
}
