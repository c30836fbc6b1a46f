package copilotcli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

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
	if _, ok := src.State.(legacyState); ok {
		return forkLegacy(v, opts)
	}
	f := &forker{src: src, ts: opts.Timestamp, session: opts.SessionID}
	f.chain = jsonl.Chain{IDKey: "id", ParentKey: "parentId", Seed: f.session}
	if err := f.start(); err != nil {
		return nil, err
	}
	count := jsonx.SourceParts(src)
	wrote := 0
	written := map[int]bool{}
	for _, s := range jsonx.PlanFork(v, jsonx.PassUnknownOnly(src, nil)) {
		switch {
		case s.Summary >= 0:
			f.summary(v.Summaries[s.Summary].Text, wrote == 0, opts)
			wrote++
		case s.Record >= 0:
			// A record may hold several lines (jsonl.Runs joins the events of
			// types this codec does not know): each is an event of the chain.
			for _, line := range bytes.Split(src.Records[s.Record].Raw, []byte("\n")) {
				if err := f.copy(line, nil, false); err != nil {
					return nil, err
				}
			}
		default:
			m := &v.Messages[s.Message]
			if len(m.Records) == 0 || len(m.Parts) == 0 || written[m.Records[0]] {
				continue
			}
			written[m.Records[0]] = true
			parts := m.Parts
			if jsonx.Untouched(parts, count[m.Records[0]]) {
				parts = nil // as it was: only the chain and session change
			}
			if err := f.copy(src.Records[m.Records[0]].Raw, parts, wrote > 0); err != nil {
				return nil, err
			}
			wrote++
		}
	}
	return f.chain.Out.Bytes(), nil
}

// summary writes a summary: opening the fork, a successful
// session.compaction_complete carrying it, as Copilot records its own;
// after other messages a user.message, since a compaction_complete there
// would replace them when the agent loads the fork.
func (f *forker) summary(text string, first bool, opts format.ForkOptions) {
	if first {
		f.event("session.compaction_complete", map[string]any{"success": true, "summaryContent": text, "preCompactionTokens": opts.TokensBefore, "postCompactionTokens": opts.TokensAfter})
		return
	}
	f.event("user.message", map[string]any{"content": text})
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
		// As the agent's own /fork starts its copy: no process holds the
		// new session, and it is no remote session's.
		if data.Has("alreadyInUse") {
			_ = data.Set("alreadyInUse", false)
		}
		data.Delete("remoteSteerable")
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
// after says whether conversation events were written before it: a
// compaction's summary there is written as a user message.
func (f *forker) copy(raw []byte, parts []transcript.Part, after bool) error {
	o, err := jsonx.ParseObject(raw)
	if err != nil {
		return fmt.Errorf("fork: %w", err)
	}
	var typ string
	_ = json.Unmarshal(o.Get("type"), &typ)
	if typ == "session.compaction_complete" && after {
		data, err := jsonx.ParseObject(o.Get("data"))
		if err != nil {
			data = &jsonx.Object{}
		}
		var text string
		_ = json.Unmarshal(data.Get("summaryContent"), &text)
		for _, p := range parts {
			if p.Kind == transcript.PartText {
				text = p.Text
			}
		}
		f.summary(text, false, format.ForkOptions{})
		return nil
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
		switch typ {
		case "assistant.message":
			if err := assistantData(data, parts); err != nil {
				return err
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
		case "user.message", "assistant.reasoning", "system.notification":
			if p := byBlock[-1]; p.Changed {
				_ = data.Set("content", p.Text)
				// The model reads transformedContent when there is one.
				data.Delete("transformedContent")
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

// assistantData rewrites an assistant.message's data to hold parts: its
// text parts as the content (a stand-in may sit where a tool request was),
// its reasoning, and the tool requests whose calls it keeps.
func assistantData(data *jsonx.Object, parts []transcript.Part) error {
	var texts []string
	changed := false
	calls := map[int]transcript.Part{}
	var reasoning *transcript.Part
	for i := range parts {
		p := &parts[i]
		switch p.Kind {
		case transcript.PartText:
			texts = append(texts, p.Text)
			changed = changed || p.Changed || p.Ref.Block != -1
		case transcript.PartReasoning:
			reasoning = p
		case transcript.PartToolCall:
			calls[p.Ref.Block] = *p
		}
	}
	switch {
	case len(texts) == 0:
		_ = data.Set("content", "")
	case changed || len(texts) > 1:
		_ = data.Set("content", strings.Join(texts, "\n\n"))
	}
	if reasoning == nil {
		// Opaque reasoning belongs to the text it signs.
		data.Delete("reasoningText")
		data.Delete("reasoningOpaque")
		data.Delete("encryptedContent")
	} else if reasoning.Changed {
		_ = data.Set("reasoningText", reasoning.Text)
	}
	if reqs := data.Get("toolRequests"); reqs != nil {
		els, err := jsonx.ParseArray(reqs)
		if err != nil {
			return fmt.Errorf("fork: toolRequests: %w", err)
		}
		keep := []json.RawMessage{}
		for k, el := range els {
			p, ok := calls[k]
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
	return nil
}
