package sessiongen

import (
	"bytes"
	"fmt"
	"strings"
)

const codexVersion = "0.77.0"

// Codex returns a Codex CLI rollout JSONL (FORMATS.md §3): session_meta
// with base instructions, turn_context per turn, response_item messages,
// reasoning with encrypted_content, shell function calls reading files with
// sed/cat, their outputs, event_msg mirrors and token_count events.
func Codex(opts Options) []byte {
	opts = opts.withDefaults("gpt-5-codex")
	g := newCodexGen(opts)
	g.buf.Grow(opts.TargetBytes + opts.TargetBytes/8)
	g.meta(opts.SessionID)
	for turn := 0; turn < opts.Turns || g.buf.Len() < opts.TargetBytes; turn++ {
		g.turn(turn)
	}
	return g.buf.Bytes()
}

type codexGen struct {
	p       *project
	buf     bytes.Buffer
	model   string
	total   int
	context int
	toFix   string
	lines   int
}

func newCodexGen(opts Options) *codexGen {
	return &codexGen{p: newProject(opts.Seed, opts.Cwd), model: opts.Model, context: 9000}
}

// item opens an envelope {timestamp, type, payload:{...; the caller writes
// the payload's members and calls end.
func (g *codexGen) item(typ string) {
	b := &g.buf
	b.WriteByte('{')
	str(b, "timestamp", g.p.tick(3000))
	str(b, "type", typ)
	key(b, "payload")
	b.WriteByte('{')
}

func (g *codexGen) end() {
	g.buf.WriteString("}}\n")
	g.lines++
}

func (g *codexGen) meta(id string) {
	if id == "" {
		id = g.p.uuid()
	}
	b := &g.buf
	g.item("session_meta")
	str(b, "id", id)
	str(b, "timestamp", g.p.now.Format("2006-01-02T15:04:05.000Z"))
	str(b, "cwd", g.p.cwd)
	str(b, "originator", "codex_cli_rs")
	str(b, "cli_version", codexVersion)
	str(b, "source", "cli")
	str(b, "model_provider", "openai")
	key(b, "base_instructions")
	b.WriteByte('{')
	str(b, "text", "You are Codex, based on GPT-5. You are running as a coding agent in the Codex CLI on a user's computer.\n\n"+
		"## General\n\n- The arguments to `shell` will be passed to execvp(). Most terminal commands should be prefixed with [\"bash\", \"-lc\"].\n"+
		"- Always set the `workdir` param when using the shell function.\n- When searching for text or files, prefer using `rg` or `rg --files` because `rg` is much faster than alternatives like `grep`.\n\n"+
		"## Editing constraints\n\n- Default to ASCII when editing or creating files.\n- You may be in a dirty git worktree. NEVER revert existing changes you did not make unless explicitly requested.\n"+
		strings.Repeat("- Keep going until the query is completely resolved before ending your turn.\n", 8))
	b.WriteByte('}')
	raw(b, "git", `{"commit_hash":"4be1c2d9a0e3f18c77b2e5d6a9c0f1e2d3c4b5a6","branch":"main","repository_url":"git@github.com:acme/inventory-service.git"}`)
	g.end()

	g.message("developer", "input_text", "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`.\nApprovals: `on-request`.\n</permissions instructions>")
	g.message("user", "input_text", "<user_instructions>\n# AGENTS.md instructions for "+g.p.cwd+"\n\n- You must run `make test` before finishing.\n- Never edit released migrations.\n- Always wrap store errors with the SKU.\n</user_instructions>")
	g.message("user", "input_text", "<environment_context>\n  <cwd>"+g.p.cwd+"</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>")
}

func (g *codexGen) message(role, kind, text string) {
	b := &g.buf
	g.item("response_item")
	str(b, "type", "message")
	str(b, "role", role)
	key(b, "content")
	b.WriteString(`[{"type":`)
	writeString(b, kind)
	b.WriteString(`,"text":`)
	writeString(b, text)
	b.WriteString(`}]`)
	g.end()
	g.context += len(text) / 4
}

func (g *codexGen) event(typ string, members ...string) {
	b := &g.buf
	g.item("event_msg")
	str(b, "type", typ)
	for i := 0; i+1 < len(members); i += 2 {
		str(b, members[i], members[i+1])
	}
	g.end()
}

func (g *codexGen) turn(n int) {
	b := &g.buf
	turnID := g.p.uuid()
	g.item("turn_context")
	str(b, "turn_id", turnID)
	str(b, "cwd", g.p.cwd)
	str(b, "approval_policy", "on-request")
	raw(b, "sandbox_policy", `{"type":"workspace-write","network_access":false,"exclude_tmpdir_env_var":false,"exclude_slash_tmp":false}`)
	str(b, "model", g.model)
	str(b, "effort", "medium")
	str(b, "summary", "auto")
	g.end()

	prompt := prompts[(n+g.p.rng.IntN(3))%len(prompts)]
	g.message("user", "input_text", prompt)
	g.event("user_message", "message", prompt)

	steps := 1 + g.p.rng.IntN(5)
	for s := 0; s < steps; s++ {
		g.reasoning()
		for _, run := range g.plan(1 + g.p.rng.IntN(2)) {
			g.shell(run)
		}
		g.tokenCount()
	}
	reply := replies[g.p.rng.IntN(len(replies))]
	g.event("agent_message", "message", reply)
	g.message("assistant", "output_text", reply)
	g.tokenCount()
}

func (g *codexGen) reasoning() {
	b := &g.buf
	summary := "**Inspecting " + g.p.pick(g.p.files) + "**\n\nI need to see how " + g.p.pick(identifiers) + " is used before changing it."
	g.event("agent_reasoning", "text", summary)
	g.item("response_item")
	str(b, "type", "reasoning")
	key(b, "summary")
	b.WriteString(`[{"type":"summary_text","text":`)
	writeString(b, summary)
	b.WriteString(`}]`)
	null(b, "content")
	str(b, "encrypted_content", "gAAAAA"+g.p.blob(800+g.p.rng.IntN(2400)))
	g.end()
}

func (g *codexGen) plan(n int) []shellRun {
	if g.toFix != "" {
		f := g.toFix
		g.toFix = ""
		g.p.revision[f]++
		return []shellRun{
			{Command: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: " + f + "\n@@\n-\treturn " + g.p.pick(identifiers) + "(ctx, tx, item)\n+\treturn fmt.Errorf(\"reserve %s: %w\", item.SKU, err)\n*** End Patch\nEOF", Stdout: "Success. Updated the following files:\nM " + f + "\n"},
			g.p.testRun(false),
		}
	}
	var runs []shellRun
	for range n {
		rel := g.p.pick(g.p.files)
		switch r := g.p.rng.IntN(10); {
		case r < 3:
			text := g.p.fileText(rel)
			lines := strings.SplitAfter(text, "\n")
			if len(lines) > 200 {
				text = strings.Join(lines[:200], "")
			}
			runs = append(runs, shellRun{Command: "sed -n '1,200p' " + rel, Stdout: text})
		case r < 5:
			runs = append(runs, shellRun{Command: "cat " + rel, Stdout: g.p.fileText(rel)})
		case r < 6:
			runs = append(runs, shellRun{Command: "cat internal/" + strings.ToLower(g.p.pick(identifiers)) + ".go", Stderr: "cat: internal/" + strings.ToLower(g.p.pick(identifiers)) + ".go: No such file or directory\n", ExitCode: 1})
		default:
			run := g.p.shell()
			if run.ExitCode != 0 && strings.HasPrefix(run.Command, "go test") {
				for _, f := range g.p.files {
					if strings.Contains(run.Stdout, f+":") {
						g.toFix = f
						break
					}
				}
			}
			runs = append(runs, run)
		}
	}
	return runs
}

func (g *codexGen) shell(run shellRun) {
	b := &g.buf
	callID := g.p.token("call_", 24)
	var args bytes.Buffer
	args.WriteString(`{"command":["bash","-lc",`)
	writeString(&args, run.Command)
	args.WriteString(`],"workdir":`)
	writeString(&args, g.p.cwd)
	args.WriteString(`,"timeout_ms":120000}`)

	g.item("response_item")
	str(b, "type", "function_call")
	str(b, "name", "shell")
	str(b, "arguments", args.String())
	str(b, "call_id", callID)
	g.end()

	out := run.Stdout + run.Stderr
	var output bytes.Buffer
	output.WriteByte('{')
	str(&output, "output", out)
	key(&output, "metadata")
	output.WriteByte('{')
	num(&output, "exit_code", run.ExitCode)
	raw(&output, "duration_seconds", fmt.Sprintf("%d.%d", g.p.rng.IntN(9), g.p.rng.IntN(10)))
	output.WriteString("}}")

	g.item("response_item")
	str(b, "type", "function_call_output")
	str(b, "call_id", callID)
	str(b, "output", output.String())
	g.end()
	g.context += len(out)/4 + 60
}

func (g *codexGen) tokenCount() {
	b := &g.buf
	input := g.context
	cached := input * 9 / 10
	output := 40 + g.p.rng.IntN(800)
	reasoning := output / 3
	last := input + output
	g.total += last
	g.item("event_msg")
	str(b, "type", "token_count")
	key(b, "info")
	b.WriteByte('{')
	raw(b, "total_token_usage", fmt.Sprintf(`{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,"total_tokens":%d}`, g.total-output, g.total*8/10, output, reasoning, g.total))
	raw(b, "last_token_usage", fmt.Sprintf(`{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,"total_tokens":%d}`, input, cached, output, reasoning, last))
	num(b, "model_context_window", 272000)
	b.WriteByte('}')
	raw(b, "rate_limits", fmt.Sprintf(`{"primary":{"used_percent":%d.0,"window_minutes":300,"resets_in_seconds":%d},"secondary":null}`, g.p.rng.IntN(90), g.p.rng.IntN(18000)))
	g.end()
	g.context += output
}
