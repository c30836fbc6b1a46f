package copilotcli

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

// Fork implements format.Codec: a new events.jsonl — the source's
// session.start under a new session id, then the view's events with their
// parentId chain rebuilt. A summary opening the fork is a
// session.compaction_complete carrying it (what Copilot records after its
// own compaction); elsewhere a user.message. Usage events are left out:
// they measured the source's context.
func (Codec) Fork(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	src := v.Source
	if src == nil {
		return nil, fmt.Errorf("fork: view has no source transcript")
	}
	opts = opts.WithDefaults()
	f := &forker{src: src, ts: opts.Timestamp, session: opts.SessionID}
	f.chain = jsonl.Chain{IDKey: "id", ParentKey: "parentId", Seed: f.session}
	if err := f.start(); err != nil {
		return nil, err
	}
	count := jsonx.SourceParts(src)
	wrote := 0
	for _, s := range jsonx.PlanFork(v, jsonx.PassUnknownOnly(src, nil)) {
		switch {
		case s.Summary >= 0:
			text := v.Summaries[s.Summary].Text
			if wrote == 0 {
				f.event("session.compaction_complete", map[string]any{"success": true, "summaryContent": text, "preCompactionTokens": opts.TokensBefore, "postCompactionTokens": opts.TokensAfter})
			} else {
				f.event("user.message", map[string]any{"content": text})
			}
			wrote++
		case s.Record >= 0:
			// A record may hold several lines (jsonl.Runs joins the events of
			// types this codec does not know): each is an event of the chain.
			for _, line := range bytes.Split(src.Records[s.Record].Raw, []byte("\n")) {
				if err := f.copy(line, nil); err != nil {
					return nil, err
				}
			}
		default:
			m := &v.Messages[s.Message]
			if len(m.Records) == 0 || len(m.Parts) == 0 {
				continue
			}
			parts := m.Parts
			if jsonx.Untouched(parts, count[m.Records[0]]) {
				parts = nil // as it was: only the chain and session change
			}
			if err := f.copy(src.Records[m.Records[0]].Raw, parts); err != nil {
				return nil, err
			}
			wrote++
		}
	}
	return f.chain.Out.Bytes(), nil
}

type forker struct {
	src     *transcript.Transcript
	ts      string
	session string
	chain   jsonl.Chain
}

func (f *forker) event(typ string, data map[string]any) {
	o := &jsonx.Object{}
	_ = o.Set("type", typ)
	b, _ := jsonx.Marshal(data)
	o.SetRaw("data", b)
	_ = o.Set("id", f.chain.NewID())
	_ = o.Set("timestamp", f.ts)
	f.chain.Emit(o)
}

// start writes the session.start event.
func (f *forker) start() error {
	for _, r := range f.src.Records {
		if r.Type != "session.start" || r.Kind == transcript.RecordMalformed {
			continue
		}
		o, err := jsonx.ParseObject(r.Raw)
		if err != nil {
			return fmt.Errorf("fork: session.start: %w", err)
		}
		data, err := jsonx.ParseObject(o.Get("data"))
		if err != nil {
			data = &jsonx.Object{} // a start without data: give it one
		}
		_ = data.Set("sessionId", f.session)
		_ = data.Set("startTime", f.ts)
		o.SetRaw("data", data.Bytes())
		_ = o.Set("id", f.chain.NewID())
		_ = o.Set("timestamp", f.ts)
		f.chain.Emit(o)
		return nil
	}
	start := map[string]any{"sessionId": f.session, "version": 1, "producer": "copilot-agent", "startTime": f.ts}
	if f.src.Meta.Cwd != "" {
		start["context"] = map[string]any{"cwd": f.src.Meta.Cwd}
	}
	f.event("session.start", start)
	return nil
}

// copy writes a source event holding exactly parts (nil: as it was).
func (f *forker) copy(raw []byte, parts []transcript.Part) error {
	o, err := jsonx.ParseObject(raw)
	if err != nil {
		return fmt.Errorf("fork: %w", err)
	}
	if parts != nil {
		data, err := jsonx.ParseObject(o.Get("data"))
		if err != nil {
			data = &jsonx.Object{} // an event without data (null or absent)
		}
		byBlock := map[int]transcript.Part{}
		for _, p := range parts {
			byBlock[p.Ref.Block] = p
		}
		var typ string
		_ = json.Unmarshal(o.Get("type"), &typ)
		switch typ {
		case "assistant.message":
			if p, ok := byBlock[-1]; !ok {
				_ = data.Set("content", "")
			} else if p.Changed {
				_ = data.Set("content", p.Text)
			}
			if p, ok := byBlock[blockReasoning]; !ok {
				data.Delete("reasoningText")
			} else if p.Changed {
				_ = data.Set("reasoningText", p.Text)
			}
			if reqs := data.Get("toolRequests"); reqs != nil {
				els, err := jsonx.ParseArray(reqs)
				if err != nil {
					return fmt.Errorf("fork: toolRequests: %w", err)
				}
				keep := []json.RawMessage{}
				for k, el := range els {
					p, ok := byBlock[k]
					if !ok {
						continue
					}
					if p.Changed && json.Valid([]byte(p.Args)) {
						if eo, err := jsonx.ParseObject(el); err == nil {
							eo.SetRaw("arguments", json.RawMessage(p.Args))
							el = eo.Bytes()
						}
					}
					keep = append(keep, el)
				}
				data.SetRaw("toolRequests", jsonx.Array(keep))
			}
		case "tool.execution_complete":
			if p := byBlock[-1]; p.Changed {
				res, err := jsonx.ParseObject(data.Get("result"))
				if err != nil {
					res = &jsonx.Object{}
				}
				_ = res.Set("content", p.Text)
				res.Delete("detailedContent")
				data.SetRaw("result", res.Bytes())
			}
		case "user.message", "assistant.reasoning":
			if p := byBlock[-1]; p.Changed {
				_ = data.Set("content", p.Text)
			}
		case "session.compaction_complete":
			if p := byBlock[-1]; p.Changed {
				_ = data.Set("summaryContent", p.Text)
			}
		}
		o.SetRaw("data", data.Bytes())
	}
	f.chain.Emit(o)
	return nil
}
