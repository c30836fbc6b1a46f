package sessiongen

import (
	"bytes"
	"fmt"
	"strings"
)

const claudeVersion = "2.0.42"

// ClaudeCode returns a Claude Code session JSONL (FORMATS.md §2): a
// standing-instruction injection, human prompts, assistant responses split
// over several lines sharing message.id, thinking with signatures, tool
// calls with toolUseResult sidecars, and file-history snapshots.
func ClaudeCode(opts Options) []byte {
	opts = opts.withDefaults("claude-sonnet-4-5-20250929")
	g := newClaudeGen(opts, opts.SessionID, "")
	g.buf.Grow(opts.TargetBytes + opts.TargetBytes/8)
	g.instructions()
	for turn := 0; turn < opts.Turns || g.buf.Len() < opts.TargetBytes; turn++ {
		g.turn(turn)
	}
	return g.buf.Bytes()
}

type claudeGen struct {
	p        *project
	buf      bytes.Buffer
	model    string
	session  string
	parent   string // uuid of the last conversation record, "" = null
	readFull map[string]bool
	toFix    string // file whose failing build the agent fixes next
	context  int    // rough prompt size in tokens, for usage figures
	lines    int
}

func newClaudeGen(opts Options, session, parent string) *claudeGen {
	g := &claudeGen{p: newProject(opts.Seed, opts.Cwd), model: opts.Model, parent: parent, readFull: map[string]bool{}, context: 12000}
	g.session = session
	if g.session == "" {
		g.session = g.p.uuid()
	}
	return g
}

// open starts a conversation record with the fields every one carries, in
// the order Claude Code writes them.
func (g *claudeGen) open(uuid string) {
	b := &g.buf
	b.WriteByte('{')
	if g.parent == "" {
		null(b, "parentUuid")
	} else {
		str(b, "parentUuid", g.parent)
	}
	boolean(b, "isSidechain", false)
	str(b, "userType", "external")
	str(b, "cwd", g.p.cwd)
	str(b, "sessionId", g.session)
	str(b, "version", claudeVersion)
	str(b, "gitBranch", "main")
	g.parent = uuid
}

func (g *claudeGen) close(uuid string) {
	str(&g.buf, "uuid", uuid)
	str(&g.buf, "timestamp", g.p.tick(4000))
}

func (g *claudeGen) endLine() {
	g.buf.WriteString("}\n")
	g.lines++
	g.context += 40
}

func (g *claudeGen) instructions() {
	b := &g.buf
	id := g.p.uuid()
	g.open(id)
	str(b, "type", "user")
	key(b, "message")
	b.WriteByte('{')
	str(b, "role", "user")
	str(b, "content", "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\n"+
		"Codebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.\n\n"+
		"Contents of "+g.p.abs("CLAUDE.md")+" (project instructions, checked into the codebase):\n\n"+
		"# inventory-service\n\n- You must run `make test` before declaring work done.\n- Never edit a migration that has been released; add a new one.\n"+
		"- Always wrap store errors with the SKU and warehouse.\n- Use table-driven tests.\n</system-reminder>")
	b.WriteByte('}')
	boolean(b, "isMeta", true)
	g.close(id)
	g.endLine()
}

func (g *claudeGen) snapshot(messageID string) {
	b := &g.buf
	b.WriteByte('{')
	str(b, "type", "file-history-snapshot")
	str(b, "messageId", messageID)
	key(b, "snapshot")
	b.WriteByte('{')
	str(b, "messageId", messageID)
	key(b, "trackedFileBackups")
	b.WriteByte('{')
	for i := 0; i < 1+g.p.rng.IntN(3); i++ {
		f := g.p.pick(g.p.files)
		sep(b)
		writeString(b, f)
		b.WriteString(`:{`)
		str(b, "backupFileName", fmt.Sprintf("%x@v%d", g.p.rng.Uint64()>>8, g.p.revision[f]+1))
		num(b, "version", g.p.revision[f]+1)
		str(b, "backupTime", g.p.tick(10))
		b.WriteByte('}')
	}
	b.WriteByte('}')
	str(b, "timestamp", g.p.tick(10))
	b.WriteByte('}')
	boolean(b, "isSnapshotUpdate", false)
	g.endLine()
}

func (g *claudeGen) prompt(turn int) {
	b := &g.buf
	id := g.p.uuid()
	g.open(id)
	str(b, "type", "user")
	key(b, "message")
	b.WriteByte('{')
	str(b, "role", "user")
	text := prompts[(turn+int(g.p.rng.IntN(3)))%len(prompts)]
	if turn%5 == 3 {
		// A pasted screenshot: real sessions carry base64 images inline.
		key(b, "content")
		b.WriteString(`[{"type":"image","source":{"type":"base64","media_type":"image/png","data":`)
		writeString(b, base64Std(pngHeader(1280+g.p.rng.IntN(640), 720+g.p.rng.IntN(360))))
		b.WriteString(`}},{"type":"text","text":`)
		writeString(b, "Here is what the dashboard shows. "+text)
		b.WriteString(`}]`)
	} else {
		str(b, "content", text)
	}
	b.WriteByte('}')
	g.close(id)
	g.endLine()
	if turn%4 == 0 {
		g.snapshot(id)
	}
}

// A toolCall is one tool_use with the result the harness sends back.
type toolCall struct {
	id, name string
	input    string // JSON object
	result   string
	isError  bool
	sidecar  string // toolUseResult JSON
}

func (g *claudeGen) turn(n int) {
	g.prompt(n)
	steps := 1 + g.p.rng.IntN(5)
	for s := 0; s < steps; s++ {
		calls := g.plan(1 + g.p.rng.IntN(3))
		g.response(s == 0, "", calls)
		for _, c := range calls {
			g.result(c)
		}
	}
	g.response(false, replies[g.p.rng.IntN(len(replies))], nil)
}

// response writes one assistant message, one line per content block, all
// sharing message.id and requestId, usage repeated on every line.
func (g *claudeGen) response(think bool, final string, calls []toolCall) {
	msgID := g.p.token("msg_01", 22)
	reqID := g.p.token("req_011", 17)
	type block struct{ json string }
	var blocks []string
	var bb bytes.Buffer
	if think {
		bb.Reset()
		bb.WriteString(`{"type":"thinking","thinking":`)
		writeString(&bb, g.p.thought())
		bb.WriteString(`,"signature":`)
		writeString(&bb, g.p.blob(300+g.p.rng.IntN(600)))
		bb.WriteByte('}')
		blocks = append(blocks, bb.String())
	}
	if final != "" || g.p.rng.IntN(2) == 0 {
		text := final
		if text == "" {
			text = "Let me look at the relevant code first."
		}
		bb.Reset()
		bb.WriteString(`{"type":"text","text":`)
		writeString(&bb, text)
		bb.WriteByte('}')
		blocks = append(blocks, bb.String())
	}
	for _, c := range calls {
		bb.Reset()
		bb.WriteString(`{"type":"tool_use","id":`)
		writeString(&bb, c.id)
		bb.WriteString(`,"name":`)
		writeString(&bb, c.name)
		bb.WriteString(`,"input":`)
		bb.WriteString(c.input)
		bb.WriteByte('}')
		blocks = append(blocks, bb.String())
	}
	stop := "tool_use"
	if len(calls) == 0 {
		stop = "end_turn"
	}
	output := 30 + g.p.rng.IntN(900)
	cacheCreate := 200 + g.p.rng.IntN(3000)
	for _, blk := range blocks {
		b := &g.buf
		id := g.p.uuid()
		g.open(id)
		key(b, "message")
		b.WriteByte('{')
		str(b, "model", g.model)
		str(b, "id", msgID)
		str(b, "type", "message")
		str(b, "role", "assistant")
		key(b, "content")
		b.WriteByte('[')
		b.WriteString(blk)
		b.WriteByte(']')
		str(b, "stop_reason", stop)
		null(b, "stop_sequence")
		key(b, "usage")
		b.WriteByte('{')
		num(b, "input_tokens", 4+g.p.rng.IntN(8))
		num(b, "cache_creation_input_tokens", cacheCreate)
		num(b, "cache_read_input_tokens", g.context)
		raw(b, "cache_creation", fmt.Sprintf(`{"ephemeral_5m_input_tokens":%d,"ephemeral_1h_input_tokens":0}`, cacheCreate))
		num(b, "output_tokens", output)
		str(b, "service_tier", "standard")
		b.WriteString("}}")
		str(b, "requestId", reqID)
		str(b, "type", "assistant")
		g.close(id)
		g.endLine()
		g.context += len(blk) / 4
	}
}

func (g *claudeGen) result(c toolCall) {
	b := &g.buf
	id := g.p.uuid()
	g.open(id)
	str(b, "type", "user")
	key(b, "message")
	b.WriteString(`{"role":"user","content":[{"tool_use_id":`)
	writeString(b, c.id)
	b.WriteString(`,"type":"tool_result","content":`)
	writeString(b, c.result)
	if c.isError {
		b.WriteString(`,"is_error":true`)
	}
	b.WriteString(`}]}`)
	g.close(id)
	raw(b, "toolUseResult", c.sidecar)
	g.endLine()
	g.context += len(c.result) / 4
}

// plan chooses the next tool calls the way an agent works: fix what broke,
// read before editing, re-read files it has seen, run tests after edits.
func (g *claudeGen) plan(n int) []toolCall {
	var calls []toolCall
	if g.toFix != "" {
		calls = append(calls, g.edit(g.toFix), g.bash(g.p.testRun(false)))
		g.toFix = ""
		return calls
	}
	for range n {
		switch r := g.p.rng.IntN(20); {
		case r < 7:
			calls = append(calls, g.read(g.p.pick(g.p.files)))
		case r < 10:
			calls = append(calls, g.bash(g.p.shell()))
		case r < 12:
			calls = append(calls, g.grep())
		case r < 13:
			calls = append(calls, g.glob())
		case r < 16:
			calls = append(calls, g.edit(g.p.pick(g.p.files)))
		case r < 17:
			calls = append(calls, g.write())
		case r < 18:
			calls = append(calls, g.todo())
		default:
			calls = append(calls, g.missingRead())
		}
	}
	return calls
}

func (g *claudeGen) callID() string { return g.p.token("toolu_01", 22) }

func obj(fields ...string) string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(fields); i += 2 {
		str(&b, fields[i], fields[i+1])
	}
	b.WriteByte('}')
	return b.String()
}

func (g *claudeGen) read(rel string) toolCall {
	path := g.p.abs(rel)
	text := g.p.fileText(rel)
	var input bytes.Buffer
	input.WriteByte('{')
	str(&input, "file_path", path)
	from, to := 1, 0
	// Early reads are often ranges; later full reads subsume them.
	if !g.readFull[rel] && g.p.rng.IntN(3) == 0 {
		from = 1 + g.p.rng.IntN(40)
		to = from + 20 + g.p.rng.IntN(40)
		num(&input, "offset", from)
		num(&input, "limit", to-from+1)
	} else {
		g.readFull[rel] = true
	}
	input.WriteByte('}')
	out, total := numbered(text, from, to)
	if to == 0 || to > total {
		to = total
	}
	var side bytes.Buffer
	side.WriteString(`{"type":"text","file":{`)
	str(&side, "filePath", path)
	str(&side, "content", text)
	num(&side, "numLines", strings.Count(out, "\n"))
	num(&side, "startLine", from)
	num(&side, "totalLines", total)
	side.WriteString("}}")
	return toolCall{id: g.callID(), name: "Read", input: input.String(), result: out, sidecar: side.String()}
}

func (g *claudeGen) missingRead() toolCall {
	path := g.p.abs("internal/" + strings.ToLower(g.p.pick(identifiers)) + ".go")
	return toolCall{id: g.callID(), name: "Read", input: obj("file_path", path),
		result: "<tool_use_error>File does not exist.</tool_use_error>", isError: true,
		sidecar: `"Error: File does not exist."`}
}

func (g *claudeGen) bash(run shellRun) toolCall {
	out := run.Stdout
	if run.Stderr != "" {
		out += run.Stderr
	}
	isErr := run.ExitCode != 0
	if isErr {
		out = fmt.Sprintf("Exit code %d\n%s", run.ExitCode, out)
		if strings.HasPrefix(run.Command, "go test") {
			for _, f := range g.p.files {
				if strings.Contains(run.Stdout, f+":") {
					g.toFix = f
					break
				}
			}
		}
	}
	var side bytes.Buffer
	side.WriteByte('{')
	str(&side, "stdout", run.Stdout)
	str(&side, "stderr", run.Stderr)
	boolean(&side, "interrupted", false)
	boolean(&side, "isImage", false)
	side.WriteByte('}')
	return toolCall{id: g.callID(), name: "Bash", input: obj("command", run.Command, "description", run.Description),
		result: out, isError: isErr, sidecar: side.String()}
}

func (g *claudeGen) grep() toolCall {
	pattern := g.p.pick(identifiers)
	var out strings.Builder
	var names []string
	for i := 0; i < 3+g.p.rng.IntN(30); i++ {
		f := g.p.pick(g.p.files)
		names = append(names, g.p.abs(f))
		fmt.Fprintf(&out, "%s:%d:\tif err := %s(ctx, req.ID); err != nil {\n", g.p.abs(f), 1+g.p.rng.IntN(300), pattern)
	}
	var side bytes.Buffer
	side.WriteByte('{')
	str(&side, "mode", "content")
	num(&side, "numFiles", len(names))
	key(&side, "filenames")
	side.WriteByte('[')
	for _, n := range names {
		sep(&side)
		writeString(&side, n)
	}
	side.WriteByte(']')
	str(&side, "content", out.String())
	num(&side, "numLines", len(names))
	side.WriteByte('}')
	return toolCall{id: g.callID(), name: "Grep", input: obj("pattern", pattern, "path", g.p.cwd, "output_mode", "content"),
		result: out.String(), sidecar: side.String()}
}

func (g *claudeGen) glob() toolCall {
	pattern := g.p.pick([]string{"**/*.go", "internal/**/*_test.go", "web/src/**/*.tsx", "**/*.sql"})
	var out strings.Builder
	var side bytes.Buffer
	side.WriteString(`{"filenames":[`)
	for _, f := range g.p.files {
		out.WriteString(g.p.abs(f) + "\n")
		sep(&side)
		writeString(&side, g.p.abs(f))
	}
	side.WriteByte(']')
	num(&side, "durationMs", 5+g.p.rng.IntN(80))
	num(&side, "numFiles", len(g.p.files))
	boolean(&side, "truncated", false)
	side.WriteByte('}')
	return toolCall{id: g.callID(), name: "Glob", input: obj("pattern", pattern), result: out.String(), sidecar: side.String()}
}

func (g *claudeGen) edit(rel string) toolCall {
	path := g.p.abs(rel)
	id := g.p.pick(identifiers)
	oldS := fmt.Sprintf("\treturn %s(ctx, tx, item)", id)
	newS := fmt.Sprintf("\tif err := %s(ctx, tx, item); err != nil {\n\t\treturn fmt.Errorf(\"%s sku %%s: %%w\", item.SKU, err)\n\t}\n\treturn nil", id, strings.ToLower(id))
	before := g.p.fileText(rel)
	g.p.revision[rel]++
	var side bytes.Buffer
	side.WriteByte('{')
	str(&side, "filePath", path)
	str(&side, "oldString", oldS)
	str(&side, "newString", newS)
	str(&side, "originalFile", before)
	raw(&side, "structuredPatch", fmt.Sprintf(`[{"oldStart":%d,"oldLines":1,"newStart":%d,"newLines":4,"lines":[%s]}]`, 10+g.p.rng.IntN(100), 10+g.p.rng.IntN(100), quoteList("-"+oldS, "+"+newS)))
	boolean(&side, "userModified", false)
	boolean(&side, "replaceAll", false)
	side.WriteByte('}')
	snippet, _ := numbered(g.p.fileText(rel), 1, 12)
	return toolCall{id: g.callID(), name: "Edit", input: obj("file_path", path, "old_string", oldS, "new_string", newS),
		result:  "The file " + path + " has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n" + snippet,
		sidecar: side.String()}
}

func (g *claudeGen) write() toolCall {
	rel := fmt.Sprintf("internal/inventory/%s_test.go", strings.ToLower(g.p.pick(identifiers)))
	path := g.p.abs(rel)
	content := g.p.fileText(rel)
	var side bytes.Buffer
	side.WriteByte('{')
	str(&side, "type", "create")
	str(&side, "filePath", path)
	str(&side, "content", content)
	raw(&side, "structuredPatch", "[]")
	side.WriteByte('}')
	return toolCall{id: g.callID(), name: "Write", input: obj("file_path", path, "content", content),
		result: "File created successfully at: " + path, sidecar: side.String()}
}

func (g *claudeGen) todo() toolCall {
	items := []string{"Reproduce the failure with a test", "Fix the reservation race", "Run the full test suite", "Update README"}
	var list bytes.Buffer
	list.WriteByte('[')
	for i, it := range items {
		status := "pending"
		if i < g.p.rng.IntN(len(items)) {
			status = "completed"
		}
		sep(&list)
		list.WriteString(obj("content", it, "status", status, "activeForm", "Working on: "+strings.ToLower(it)))
	}
	list.WriteByte(']')
	return toolCall{id: g.callID(), name: "TodoWrite", input: `{"todos":` + list.String() + `}`,
		result:  "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
		sidecar: `{"oldTodos":[],"newTodos":` + list.String() + `}`}
}

func quoteList(items ...string) string {
	var b bytes.Buffer
	for _, it := range items {
		sep(&b)
		writeString(&b, it)
	}
	return b.String()
}
