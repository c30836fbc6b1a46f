package sessiongen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The shapes below follow what Copilot CLI itself writes and reads back
// (its session event schema and the loader that rebuilds a conversation
// from the events, in the @github/copilot package): 0.0.343–0.0.38x kept
// each session as session-state/<id>.jsonl, later releases as
// session-state/<id>/events.jsonl with background compactions.

// CopilotCLI returns a Copilot CLI 1.0 session (session-state/<id>/events.jsonl):
// session.start with its context, user.message with transformedContent,
// assistant.message with reasoning and tool requests, tool executions,
// subagents whose events carry parentToolCallId, commands the user ran
// themselves, turns the user aborted mid-call, restarts, the truncations
// Copilot logs when it drops old messages from a request, and background
// compactions: a session.compaction_start, more work, then the
// session.compaction_complete whose summary replaces what the conversation
// held at the start (sometimes between a call and its result).
func CopilotCLI(opts Options) []byte {
	return copilot(opts.withDefaults("claude-sonnet-4.6"), true)
}

// CopilotCLIFlat returns a session of the flat layout Copilot CLI
// 0.0.343–0.0.38x wrote (session-state/<id>.jsonl): no context on
// session.start, no reasoning, no compactions, but truncations, aborts,
// restarts and subagents.
func CopilotCLIFlat(opts Options) []byte {
	return copilot(opts.withDefaults("claude-sonnet-4.5"), false)
}

type copilotGen struct {
	p       *project
	buf     bytes.Buffer
	model   string
	v1      bool
	parent  string
	events  int
	context int
	turn    int
	// compaction: 0 none yet, 1 started, 2 done.
	compaction int
	sinceStart int
}

func copilot(opts Options, v1 bool) []byte {
	g := &copilotGen{p: newProject(opts.Seed, opts.Cwd), model: opts.Model, v1: v1, context: 12000}
	id := opts.SessionID
	if id == "" {
		id = g.p.uuid()
	}
	g.event("session.start", func(b *bytes.Buffer) {
		str(b, "sessionId", id)
		num(b, "version", 1)
		str(b, "producer", "copilot-agent")
		if v1 {
			str(b, "copilotVersion", "1.0.52")
		} else {
			str(b, "copilotVersion", "0.0.372")
		}
		str(b, "startTime", g.p.now.Format("2006-01-02T15:04:05.000Z"))
		if v1 {
			raw(b, "context", fmt.Sprintf(`{"cwd":%q,"gitRoot":%q,"branch":"main","repository":"acme/inventory-service"}`, g.p.cwd, g.p.cwd))
		}
	})
	g.event("session.info", func(b *bytes.Buffer) {
		str(b, "infoType", "folder_trust")
		str(b, "message", "Folder "+g.p.cwd+" has been added to trusted folders.")
	})
	g.event("session.model_change", func(b *bytes.Buffer) { str(b, "newModel", g.model) })
	for turn := 0; turn < opts.Turns || g.buf.Len() < opts.TargetBytes; turn++ {
		g.nextTurn(turn, opts.Turns)
	}
	g.event("session.shutdown", func(b *bytes.Buffer) {
		str(b, "shutdownType", "routine")
		num(b, "totalPremiumRequests", opts.Turns)
		num(b, "currentTokens", g.context)
		str(b, "currentModel", g.model)
	})
	return g.buf.Bytes()
}

// event writes one event: {type, data, id, timestamp, parentId}, each
// naming the one before it.
func (g *copilotGen) event(typ string, data func(b *bytes.Buffer)) {
	b := &g.buf
	id := g.p.uuid()
	b.WriteByte('{')
	str(b, "type", typ)
	key(b, "data")
	b.WriteByte('{')
	data(b)
	b.WriteByte('}')
	str(b, "id", id)
	str(b, "timestamp", g.p.tick(4000))
	if g.parent == "" {
		null(b, "parentId")
	} else {
		str(b, "parentId", g.parent)
	}
	b.WriteString("}\n")
	g.parent = id
	g.events++
	if g.compaction == 1 {
		g.sinceStart++
	}
}

type copilotCall struct {
	id, name, args string
	result         string
	ok             bool
}

func (g *copilotGen) nextTurn(n, turns int) {
	g.turn = n
	prompt := prompts[(n+g.p.rng.IntN(3))%len(prompts)]
	g.event("user.message", func(b *bytes.Buffer) {
		str(b, "content", prompt)
		if g.v1 {
			str(b, "transformedContent", prompt+"\n\n<current_datetime>"+g.p.now.Format("2006-01-02T15:04:05.000Z")+"</current_datetime>")
		}
		raw(b, "attachments", "[]")
	})
	g.context += len(prompt)/4 + 20
	g.event("assistant.turn_start", func(b *bytes.Buffer) { str(b, "turnId", fmt.Sprint(n)) })
	// One turn in seven is interrupted: the user aborts while a call runs.
	abort := n > 0 && g.p.rng.IntN(7) == 0
	steps := 1 + g.p.rng.IntN(4)
	for s := 0; s < steps; s++ {
		calls := g.plan(1 + g.p.rng.IntN(3))
		g.event("assistant.message", func(b *bytes.Buffer) {
			str(b, "messageId", g.p.uuid())
			if s == 0 {
				str(b, "content", "I'll start by looking at the relevant code.")
			} else {
				str(b, "content", "")
			}
			key(b, "toolRequests")
			b.WriteByte('[')
			for _, c := range calls {
				sep(b)
				b.WriteByte('{')
				str(b, "toolCallId", c.id)
				str(b, "name", c.name)
				raw(b, "arguments", c.args)
				if g.v1 {
					str(b, "type", "function")
				}
				b.WriteByte('}')
			}
			b.WriteByte(']')
			if g.v1 && g.p.rng.IntN(3) == 0 {
				str(b, "reasoningText", g.p.thought())
			}
		})
		g.maybeCompaction(turns)
		for _, c := range calls {
			g.event("tool.execution_start", func(b *bytes.Buffer) {
				str(b, "toolCallId", c.id)
				str(b, "toolName", c.name)
				raw(b, "arguments", c.args)
			})
		}
		for k, c := range calls {
			if c.name == "task" {
				g.subagent(c.id)
			}
			if abort && s == steps-1 && k == len(calls)-1 {
				// The last call never finishes.
				g.event("abort", func(b *bytes.Buffer) { str(b, "reason", "user initiated") })
				break
			}
			if k == len(calls)-1 {
				g.maybeCompaction(turns)
			}
			g.result(c)
		}
	}
	if !abort {
		reply := replies[g.p.rng.IntN(len(replies))]
		g.event("assistant.message", func(b *bytes.Buffer) {
			str(b, "messageId", g.p.uuid())
			str(b, "content", reply)
			raw(b, "toolRequests", "[]")
		})
		g.context += len(reply) / 4
	}
	g.event("assistant.turn_end", func(b *bytes.Buffer) { str(b, "turnId", fmt.Sprint(n)) })
	if g.context > 60000 {
		g.truncation()
	}
	switch n % 9 {
	case 4:
		// A command the user ran themselves (! in the prompt).
		id := g.p.token("toolu_vrtx_", 24)
		g.event("tool.user_requested", func(b *bytes.Buffer) {
			str(b, "toolCallId", id)
			str(b, "toolName", "bash")
			raw(b, "arguments", `{"command":"git log --oneline -5"}`)
		})
		g.event("tool.execution_complete", func(b *bytes.Buffer) {
			str(b, "toolCallId", id)
			boolean(b, "success", true)
			raw(b, "result", `{"content":"4be1c2d fix reserve race\n9a0e3f1 add sku index"}`)
			boolean(b, "isUserRequested", true)
		})
	case 7:
		// The process ended and the session was resumed later.
		g.event("session.shutdown", func(b *bytes.Buffer) {
			str(b, "shutdownType", "routine")
			num(b, "currentTokens", g.context)
		})
		g.event("session.resume", func(b *bytes.Buffer) {
			str(b, "resumeTime", g.p.tick(60000))
			num(b, "eventCount", g.events)
		})
	}
}

// plan returns the next calls of a step.
func (g *copilotGen) plan(n int) []copilotCall {
	calls := make([]copilotCall, 0, n)
	for range n {
		c := copilotCall{id: g.p.token("toolu_vrtx_", 24), ok: true}
		rel := g.p.pick(g.p.files)
		switch r := g.p.rng.IntN(10); {
		case r < 4:
			c.name, c.args = "view", fmt.Sprintf(`{"path":%q}`, g.p.abs(rel))
			var out strings.Builder
			for i, line := range strings.Split(g.p.fileText(rel), "\n") {
				fmt.Fprintf(&out, "%d. %s\n", i+1, line)
			}
			c.result = out.String()
		case r < 5:
			c.name, c.args = "view", fmt.Sprintf(`{"path":%q}`, g.p.abs("internal/"+strings.ToLower(g.p.pick(identifiers))+".go"))
			c.result, c.ok = "Path does not exist", false
		case r < 6:
			g.p.revision[rel]++
			c.name, c.args = "edit", fmt.Sprintf(`{"path":%q,"old_str":"return nil","new_str":"return fmt.Errorf(\"reserve: %%w\", err)"}`, g.p.abs(rel))
			c.result = "File " + g.p.abs(rel) + " updated with changes."
		case r < 7:
			c.name = "task"
			c.args = `{"description":"Find callers","prompt":"Find every caller of ` + g.p.pick(identifiers) + ` and say which hold a transaction.","agent_type":"explore"}`
			c.result = "Three callers; only ReserveStock holds a transaction."
		default:
			run := g.p.shell()
			var args bytes.Buffer
			args.WriteByte('{')
			str(&args, "command", run.Command)
			str(&args, "description", run.Description)
			args.WriteByte('}')
			c.name, c.args = "bash", args.String()
			c.result = run.Stdout + run.Stderr + fmt.Sprintf("<exited with exit code %d>", run.ExitCode)
		}
		calls = append(calls, c)
	}
	return calls
}

func (g *copilotGen) result(c copilotCall) {
	g.event("tool.execution_complete", func(b *bytes.Buffer) {
		str(b, "toolCallId", c.id)
		boolean(b, "success", c.ok)
		if c.ok {
			key(b, "result")
			b.WriteByte('{')
			str(b, "content", c.result)
			str(b, "detailedContent", c.result)
			b.WriteByte('}')
		} else {
			key(b, "error")
			b.WriteByte('{')
			str(b, "message", c.result)
			str(b, "code", "failure")
			b.WriteByte('}')
		}
		if g.v1 {
			str(b, "model", g.model)
		}
	})
	g.context += len(c.result)/4 + 30
}

// subagent writes the events of a task call's subagent: its own messages
// and calls, each naming the task call as parentToolCallId.
func (g *copilotGen) subagent(parent string) {
	g.event("subagent.started", func(b *bytes.Buffer) {
		str(b, "toolCallId", parent)
		str(b, "agentName", "explore")
	})
	for _, c := range g.plan(1 + g.p.rng.IntN(2)) {
		if c.name == "task" {
			continue
		}
		g.event("assistant.message", func(b *bytes.Buffer) {
			str(b, "messageId", g.p.uuid())
			str(b, "content", "")
			raw(b, "toolRequests", fmt.Sprintf(`[{"toolCallId":%q,"name":%q,"arguments":%s}]`, c.id, c.name, c.args))
			str(b, "parentToolCallId", parent)
		})
		g.event("tool.execution_complete", func(b *bytes.Buffer) {
			str(b, "toolCallId", c.id)
			boolean(b, "success", true)
			key(b, "result")
			b.WriteByte('{')
			str(b, "content", c.result)
			b.WriteByte('}')
			str(b, "parentToolCallId", parent)
		})
	}
	g.event("subagent.completed", func(b *bytes.Buffer) {
		str(b, "toolCallId", parent)
		str(b, "agentName", "explore")
	})
}

// truncation logs what Copilot dropped from the last request.
func (g *copilotGen) truncation() {
	pre := g.context
	removed := pre / 3
	g.event("session.truncation", func(b *bytes.Buffer) {
		num(b, "tokenLimit", 128000)
		num(b, "preTruncationTokensInMessages", pre)
		num(b, "preTruncationMessagesLength", g.events/2)
		num(b, "postTruncationTokensInMessages", pre-removed)
		num(b, "postTruncationMessagesLength", g.events/3)
		num(b, "tokensRemovedDuringTruncation", removed)
		num(b, "messagesRemovedDuringTruncation", g.events/6)
		str(b, "performedBy", "BasicTruncator")
	})
	g.context -= removed
}

// maybeCompaction runs a background compaction in 1.0 sessions: it starts
// once a third of the turns are done, after a step's tool requests or
// before its last result, and completes a few events later at the next
// such point: between a call and its result when it falls there.
func (g *copilotGen) maybeCompaction(turns int) {
	if !g.v1 {
		return
	}
	switch {
	case g.compaction == 0 && g.turn >= turns/3 && g.turn > 0:
		g.compaction = 1
		g.event("session.compaction_start", func(b *bytes.Buffer) {
			num(b, "systemTokens", 8351)
			num(b, "conversationTokens", g.context)
			num(b, "toolDefinitionsTokens", 3309)
		})
	case g.compaction == 1 && g.sinceStart > 4:
		g.compaction = 2
		pre := g.context
		g.event("session.compaction_complete", func(b *bytes.Buffer) {
			boolean(b, "success", true)
			num(b, "preCompactionTokens", pre)
			num(b, "preCompactionMessagesLength", g.events/2)
			str(b, "summaryContent", "<overview>\nThe user is hardening the inventory service: reservation races, retries and the SKU index.\n</overview>\n\n<history>\n1. Fixed the race in ReserveStock with a single conditional UPDATE.\n2. Added the SKU index migration; store tests pass.\n</history>\n\n<next_steps>\nRun the full test suite before saying the work is done.\n</next_steps>")
			num(b, "checkpointNumber", 1)
		})
		g.context = g.context/5 + 2000
	}
}

// CopilotCLILegacy returns a session of the releases before 0.0.342
// (history-session-state/session_<id>_<ms>.json): one JSON document, two
// spaces indented as the CLI wrote it, of the chatMessages the model got
// (prompts with the context the CLI appends, tool calls with arguments as
// JSON strings, their results; a turn the user interrupted leaves calls
// without results) and the timeline it showed.
func CopilotCLILegacy(opts Options) []byte {
	opts = opts.withDefaults("claude-sonnet-4.5")
	g := &copilotGen{p: newProject(opts.Seed, opts.Cwd), model: opts.Model}
	id := opts.SessionID
	if id == "" {
		id = g.p.uuid()
	}
	var chat, timeline bytes.Buffer
	entry := func(typ string, fields func(b *bytes.Buffer)) {
		sep(&timeline)
		timeline.WriteByte('{')
		str(&timeline, "type", typ)
		fields(&timeline)
		str(&timeline, "id", g.p.uuid())
		str(&timeline, "timestamp", g.p.tick(4000))
		timeline.WriteByte('}')
	}
	message := func(fields func(b *bytes.Buffer)) {
		sep(&chat)
		chat.WriteByte('{')
		fields(&chat)
		chat.WriteByte('}')
	}
	chat.WriteByte('[')
	timeline.WriteByte('[')
	start := g.p.now
	for n := 0; n < opts.Turns || chat.Len() < opts.TargetBytes; n++ {
		prompt := prompts[(n+g.p.rng.IntN(3))%len(prompts)]
		now := g.p.tick(4000)
		message(func(b *bytes.Buffer) {
			str(b, "role", "user")
			str(b, "content", prompt+"\n\n<current_datetime>"+now+"</current_datetime>")
		})
		entry("user", func(b *bytes.Buffer) { str(b, "text", prompt) })
		abort := n > 0 && g.p.rng.IntN(7) == 0
		steps := 1 + g.p.rng.IntN(4)
		for s := 0; s < steps; s++ {
			calls := g.plan(1 + g.p.rng.IntN(3))
			message(func(b *bytes.Buffer) {
				str(b, "role", "assistant")
				if s == 0 {
					str(b, "content", "I'll start by looking at the relevant code.")
				} else {
					null(b, "content")
				}
				key(b, "tool_calls")
				b.WriteByte('[')
				for _, c := range calls {
					sep(b)
					b.WriteByte('{')
					str(b, "id", c.id)
					str(b, "type", "function")
					key(b, "function")
					b.WriteByte('{')
					str(b, "name", c.name)
					str(b, "arguments", c.args)
					b.WriteString("}}")
				}
				b.WriteByte(']')
			})
			for k, c := range calls {
				if abort && s == steps-1 && k == len(calls)-1 {
					break // interrupted: this call has no result
				}
				message(func(b *bytes.Buffer) {
					str(b, "role", "tool")
					str(b, "tool_call_id", c.id)
					str(b, "content", c.result)
				})
				entry("tool_call_completed", func(b *bytes.Buffer) {
					str(b, "callId", c.id)
					str(b, "name", c.name)
					str(b, "toolTitle", c.name)
					null(b, "intentionSummary")
					key(b, "result")
					b.WriteByte('{')
					if c.ok {
						str(b, "type", "success")
					} else {
						str(b, "type", "failure")
					}
					str(b, "log", c.result)
					b.WriteByte('}')
					raw(b, "arguments", c.args)
				})
			}
		}
		if !abort {
			reply := replies[g.p.rng.IntN(len(replies))]
			message(func(b *bytes.Buffer) {
				str(b, "role", "assistant")
				str(b, "content", reply)
			})
			entry("copilot", func(b *bytes.Buffer) { str(b, "text", reply) })
		}
	}
	chat.WriteByte(']')
	timeline.WriteByte(']')
	var doc bytes.Buffer
	doc.WriteByte('{')
	str(&doc, "sessionId", id)
	str(&doc, "startTime", start.Format("2006-01-02T15:04:05.000Z"))
	raw(&doc, "chatMessages", chat.String())
	raw(&doc, "timeline", timeline.String())
	str(&doc, "selectedModel", g.model)
	doc.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, doc.Bytes(), "", "  "); err != nil {
		panic(err) // the generator wrote JSON that does not parse
	}
	return out.Bytes()
}
