package summarize

import (
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
)

// DefaultPrompt is the system prompt for summarizing an archived span. It
// carries the five preservation directives (goal and environment; errors,
// commands and outcomes; decisions and why; resolved and open; who said
// what) plus the verbatim facts coding agents rely on.
const DefaultPrompt = `You are summarizing the older part of a conversation between a user and an AI coding agent. The raw turns below will be removed from the agent's context and replaced by your summary, so the summary is the agent's only memory of them. Write the execution frontier, in this order, as Markdown sections:
1. Goal: what the user is building or fixing, the project, languages, tools, versions, operating system and working directory, and the user's latest request.
2. Done: what was completed, and what failed and was fixed.
3. Remaining: what is still open — pending tasks, unanswered questions.
4. Next action: what the agent was about to do when the history was cut.
5. Files touched, each with its last known state (read, created, edited and how).
6. Commands that work: the build, test and run commands that succeeded, verbatim.
7. Open errors: every error message not yet resolved, verbatim.
Then: the user's standing instructions, verbatim. Decisions that were made and why, including approaches tried and rejected. Who said what: what the user asked or instructed versus what the assistant did or suggested.
Keep file paths, commands, identifiers and error lines verbatim. Leave out file contents and long tool output; say what was learned from them instead. Be concise but complete. No preamble.`

// MergePrompt replaces DefaultPrompt when earlier summaries are folded into
// one (recursive summarization).
const MergePrompt = `You are merging several summaries of consecutive, older parts of a conversation between a user and an AI coding agent into one summary. The summaries below will be replaced by yours, so it is the agent's only memory of that history. Keep the oldest material as carefully as the newest: do not let recent detail crowd out early goals and decisions. Preserve:
1. The user's goal and environment.
2. Every error message, command run and its outcome.
3. Decisions that were made and why.
4. What is resolved and what remains open.
5. Who said what: what the user asked or instructed versus what the assistant did or suggested.
Keep file paths, commands, identifiers, error lines and the user's standing instructions verbatim. Be concise but complete. Write Markdown with short sections, no preamble.`

// A Prompt is what is sent to a model: a system prompt and one user message.
type Prompt struct {
	System string
	User   string
	// MaxTokens caps the reply (0 = the provider's configured default).
	MaxTokens int
}

// BuildPrompt renders req for a model. Instructions, when set, are
// appended to the default prompt, never substituted for it. Every secret in
// the rendered transcript and in the instructions is redacted; the count
// is returned so the summary's metadata can say how many.
func BuildPrompt(req Request, instructions string, opts RenderOptions) (Prompt, int) {
	system := DefaultPrompt
	if req.Merge {
		system = MergePrompt
	}
	if req.Budget > 0 {
		system += fmt.Sprintf("\nKeep the summary under about %d tokens.", req.Budget)
	}
	if s := strings.TrimSpace(instructions); s != "" {
		system += "\n\nAdditional instructions from the user:\n" + s
	}
	system, n1 := Redact(system)

	opts.FirstTurn = req.FromTurn
	var user strings.Builder
	if req.Merge {
		fmt.Fprintf(&user, "Here are the summaries of turns %d to %d, oldest first.\n\n", req.FromTurn, req.ToTurn-1)
		for i := range req.Messages {
			fmt.Fprintf(&user, "=== Summary %d ===\n%s\n\n", i+1, strings.TrimSpace(messageText(&req.Messages[i])))
		}
	} else {
		fmt.Fprintf(&user, "Here are turns %d to %d of the conversation.\n\n", req.FromTurn, req.ToTurn-1)
		user.WriteString(Render(req.Messages, opts))
	}
	user.WriteString("\nWrite the summary now.")
	text, n2 := Redact(user.String())
	return Prompt{System: system, User: text}, n1 + n2
}

// messageText joins a message's prose parts.
func messageText(m *transcript.Message) string {
	var parts []string
	for _, p := range m.Parts {
		if p.Kind == transcript.PartText && strings.TrimSpace(p.Text) != "" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}
