package copilotchat

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

// Fork implements format.Codec: the session with the view's requests,
// edited, under a new sessionId, written as one snapshot (kind 0) for a
// .jsonl log or as the document for a .json session. Each summary is a
// request whose prompt is the summary and whose response is empty.
// Reported token counts are dropped: they counted the source's context.
func (Codec) Fork(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	src := v.Source
	fr, ok := src.Frame.(*frame)
	if src == nil || !ok || fr.session == nil {
		return nil, fmt.Errorf("fork: the view's source was not parsed by the copilot-chat codec")
	}
	var session map[string]any
	b, err := json.Marshal(fr.session)
	if err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	if err := decode(b, &session); err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	reqs := requestsOf(session)
	kept := map[int]map[int]transcript.Part{}
	var order []int
	dropUsage := map[int]bool{}
	summariesAt := func(i int, out *[]any) {
		for _, s := range v.Summaries {
			if s.Before == i {
				*out = append(*out, map[string]any{"requestId": fmt.Sprintf("summary-%d", len(*out)), "message": map[string]any{"text": s.Text, "parts": []any{}}, "response": []any{}})
			}
		}
	}
	var out []any
	for i, m := range v.Messages {
		summariesAt(i, &out)
		for _, p := range m.Parts {
			k := p.Ref.Block / requestBlock
			if kept[k] == nil {
				kept[k] = map[int]transcript.Part{}
				order = append(order, k)
				out = append(out, k) // placeholder: request k
			}
			kept[k][p.Ref.Block%requestBlock] = p
		}
		if len(m.Parts) > 0 {
			dropUsage[m.Parts[0].Ref.Block/requestBlock] = true
		}
	}
	summariesAt(len(v.Messages), &out)
	for i, x := range out {
		k, isReq := x.(int)
		if !isReq {
			continue
		}
		if k < 0 || k >= len(reqs) {
			return nil, fmt.Errorf("fork: request %d outside the session", k)
		}
		req := obj(reqs[k])
		editRequest(req, kept[k], dropUsage[k])
		out[i] = req
	}
	if out == nil {
		out = []any{}
	}
	session["requests"] = out
	if opts.SessionID != "" {
		session["sessionId"] = opts.SessionID
	}
	delete(session, "pendingRequests")
	body, err := jsonx.Marshal(session)
	if err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	if fr.lines == nil {
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, body, "", "  "); err != nil {
			return nil, fmt.Errorf("fork: %w", err)
		}
		return pretty.Bytes(), nil
	}
	return append(append([]byte(`{"kind":0,"v":`), body...), "}\n"...), nil
}

// editRequest makes request req hold exactly the kept parts (by sub-block).
func editRequest(req map[string]any, kept map[int]transcript.Part, dropUsage bool) {
	msg := obj(req["message"])
	if p, ok := kept[0]; !ok {
		if msg != nil {
			msg["text"], msg["parts"] = "", []any{}
		}
	} else if p.Changed && msg != nil {
		msg["text"], msg["parts"] = p.Text, []any{}
	}
	answer, hasAnswer := kept[1]
	thinking, hasThinking := kept[2]
	var resp []any
	parts, _ := req["response"].([]any)
	wroteAnswer := false
	for _, pv := range parts {
		p := obj(pv)
		switch str(p["kind"]) {
		case "", "markdownContent":
			if !hasAnswer {
				continue
			}
			if answer.Changed {
				if !wroteAnswer {
					resp = append(resp, map[string]any{"value": answer.Text})
					wroteAnswer = true
				}
				continue
			}
		case "thinking":
			if !hasThinking {
				continue
			}
			if thinking.Changed {
				p["value"] = thinking.Text
			}
		}
		resp = append(resp, pv)
	}
	if resp == nil {
		resp = []any{}
	}
	req["response"] = resp
	result := obj(req["result"])
	meta := obj(result["metadata"])
	if meta != nil {
		results := obj(meta["toolCallResults"])
		rounds, _ := meta["toolCallRounds"].([]any)
		var keepRounds []any
		for r, rnd := range rounds {
			round := obj(rnd)
			if round == nil {
				continue
			}
			if p, ok := kept[roundBlock*(r+1)-1]; ok && p.Changed {
				round["response"] = p.Text
			} else if !ok && r < len(rounds)-1 {
				round["response"] = ""
			}
			calls, _ := round["toolCalls"].([]any)
			var keepCalls []any
			for j, cv := range calls {
				call := obj(cv)
				id := str(call["id"])
				c, okCall := kept[roundBlock*(r+1)+2*j]
				res, okRes := kept[roundBlock*(r+1)+2*j+1]
				if !okCall {
					delete(results, id)
					continue
				}
				if c.Changed {
					call["arguments"] = c.Args
				}
				if okRes && res.Changed && results != nil {
					results[id] = map[string]any{"content": []any{map[string]any{"value": res.Text}}}
				} else if !okRes {
					delete(results, id)
				}
				keepCalls = append(keepCalls, call)
			}
			if keepCalls == nil {
				keepCalls = []any{}
			}
			round["toolCalls"] = keepCalls
			keepRounds = append(keepRounds, round)
		}
		if rounds != nil {
			if keepRounds == nil {
				keepRounds = []any{}
			}
			meta["toolCallRounds"] = keepRounds
		}
		if dropUsage {
			delete(meta, "promptTokens")
			delete(meta, "outputTokens")
		}
	}
	if dropUsage {
		delete(req, "usage")
	}
}
