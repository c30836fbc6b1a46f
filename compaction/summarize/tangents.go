package summarize

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
)

// TangentPrompt asks a model which turns are unrelated to the current task.
const TangentPrompt = `You review a conversation between a user and an AI coding agent to find tangents: turns unrelated to the task the user is working on now (the last turns show it). A turn is a tangent only if removing it loses nothing the agent needs for the current task: side questions, abandoned explorations of unrelated code, chit-chat. Turns that set goals, standing instructions, decisions, or touch files the current task depends on are never tangents.
Reply with only a JSON array of the tangent turns' numbers, for example [3, 7]. Reply [] when there are none.`

// A Tangents result lists turns a model judged unrelated to the current
// task, for a dry run to show and an editor to confirm before removal.
type Tangents struct {
	// Turns are turn indexes, ascending, as numbered in the prompt.
	Turns []int
	// Redacted counts secrets removed from the prompt.
	Redacted int
	Model    string
}

// ClassifyTangents asks model which of turns (numbered from firstTurn)
// are tangents. The last turn is the current task and is never returned;
// numbers outside the span are ignored. A reply that is not a JSON list of
// turn numbers is an error.
func ClassifyTangents(ctx context.Context, model Model, msgs []transcript.Message, firstTurn int, instructions string) (Tangents, error) {
	turns := transcript.BuildTurns(msgs)
	if len(turns) < 2 {
		return Tangents{Model: model.Name()}, nil
	}
	system := TangentPrompt
	if s := strings.TrimSpace(instructions); s != "" {
		system += "\n\nAdditional instructions from the user:\n" + s
	}
	user := fmt.Sprintf("Turns %d to %d; the current task is in turn %d.\n\n%s\nWhich turns are tangents?",
		firstTurn, firstTurn+len(turns)-1, firstTurn+len(turns)-1,
		Render(msgs, RenderOptions{FirstTurn: firstTurn, ToolResultChars: 300, TextChars: 1500}))
	system, n1 := Redact(system)
	user, n2 := Redact(user)
	comp, err := model.Complete(ctx, Prompt{System: system, User: user, MaxTokens: 512})
	if err != nil {
		return Tangents{}, fmt.Errorf("classify tangents with %s: %w", model.Name(), err)
	}
	list, err := parseTurnList(comp.Text)
	if err != nil {
		return Tangents{}, fmt.Errorf("classify tangents with %s: %w", model.Name(), err)
	}
	last := firstTurn + len(turns) - 1
	seen := map[int]bool{}
	out := Tangents{Redacted: n1 + n2, Model: comp.Model}
	if out.Model == "" {
		out.Model = model.Name()
	}
	for _, t := range list {
		if t >= firstTurn && t < last && !seen[t] {
			seen[t] = true
			out.Turns = append(out.Turns, t)
		}
	}
	sort.Ints(out.Turns)
	return out, nil
}

// parseTurnList reads the model's reply: a JSON array of integers, maybe
// inside a code fence or an object such as {"tangents": [...]}.
func parseTurnList(reply string) ([]int, error) {
	s := strings.TrimSpace(reply)
	if s == "" {
		return nil, ErrBlank
	}
	var obj map[string][]int
	if json.Unmarshal([]byte(s), &obj) == nil {
		for _, v := range obj {
			return v, nil
		}
		return nil, nil
	}
	start, end := strings.IndexByte(s, '['), strings.LastIndexByte(s, ']')
	if start < 0 || end < start {
		return nil, fmt.Errorf("the model's reply is not a JSON list of turn numbers: %q", Truncate(s, 120))
	}
	var list []int
	if err := json.Unmarshal([]byte(s[start:end+1]), &list); err != nil {
		return nil, fmt.Errorf("the model's reply is not a JSON list of turn numbers (%v): %q", err, Truncate(s, 120))
	}
	return list, nil
}
