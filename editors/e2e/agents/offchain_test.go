package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// Issue 34, item 2: forks read as the agent reads them. Claude Code writes
// the results of parallel tool calls as children of the rows holding the
// calls, so the parentUuid chain runs through one of them and the others
// hang beside it — an image read among them — and a subagent's file does
// the same with sidechain rows. Claude Code's loader joins them back;
// compactd's walk left them out, so forks kept calls without their
// results (with every strategy) and compactd's own check passed them.
//
// TestRealAgentOffChainForks has Claude Code make a session of the shapes
// users make: a Read of a PNG, a response with three parallel calls (a
// Read of the PNG among them), an Agent call whose subagent reads in
// parallel too, the agent's own /compact, and parallel calls after it.
// compactd forks the session with several strategies and Claude Code
// resumes each fork; every request it sends must pass the model server's
// API checks, and every tool result the fork keeps must reach the model
// as the session had it — not the "[Tool result missing due to internal
// error]" Claude Code puts in place of a result a fork lost. The
// subagent's file is forked too, and read back as Claude Code loads it.
func TestRealAgentOffChainForks(t *testing.T) {
	enabled(t)
	bin := compactdBin(t)
	var command, version string
	if c := os.Getenv("COMPACTD_AGENTS_CLAUDE"); c != "" {
		// Another Claude Code to run the same session with (an older
		// release, to see its shapes): its command.
		command, version = c, claudeVersion(t, c)
	} else {
		command, version = installedAgent(t, claude.name, claude.command)
	}
	sb := newSandbox(t)
	shot := writePNG(t, filepath.Join(sb.project, "shot.png"))
	p := sb.project
	agentCall := modelserver.Action{Kind: modelserver.Named, Tool: "Agent", Args: map[string]any{
		"description": "read the project", "subagent_type": "general-purpose",
		"prompt": modelserver.TaskTag("subwork") + " Read main.go and shot.png and say what they show."}}
	turns := map[string]modelserver.Turn{
		"look": {Thinking: thinking, Steps: [][]modelserver.Action{{{Kind: modelserver.Read, Path: shot}}},
			Answer: "A red rule across a white field. (answer look)"},
		"par": {Thinking: thinking, Steps: [][]modelserver.Action{{{Kind: modelserver.Read, Path: shot}, {Kind: modelserver.Read, Path: p + "/main.go"}, {Kind: modelserver.Shell, Command: "ls -la " + p}}},
			Answer: "The screenshot, the inventory code and the listing agree. (answer par)"},
		"sub": {Thinking: thinking, Steps: [][]modelserver.Action{{agentCall}},
			Answer: "The subagent read both. (answer sub)"},
		"subwork": {Thinking: thinking, Steps: [][]modelserver.Action{{{Kind: modelserver.Read, Path: shot}, {Kind: modelserver.Read, Path: p + "/main.go"}}},
			Answer: "main.go keeps an inventory; shot.png is a red rule. (answer subwork)"},
		"after": {Thinking: thinking, Steps: [][]modelserver.Action{{{Kind: modelserver.Read, Path: shot}, {Kind: modelserver.Read, Path: p + "/README.md"}, {Kind: modelserver.Shell, Command: "wc -l " + p + "/main.go"}}},
			Answer: "Nothing changed since the compaction. (answer after)"},
	}
	// budget is --budget: the session fitted into half its size (a
	// verbatim suffix and the offline summary of the rest).
	strategies := []string{"strip-reasoning", "auto", "strip-attachments", "dedup-tools", "strip-tool-results", "turn-window", "budget"}
	for _, s := range strategies {
		turns["resume-"+s] = resumeTurn(s)
		turns["resume-compacted-"+s] = resumeTurn("compacted " + s)
	}
	srv, err := modelserver.Start(modelserver.Options{Script: &modelserver.Script{Turns: turns}, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	claude.configure(t, sb, srv)
	t.Logf("Claude Code %s in %s", version, sb.root)

	tools := "Read Bash Edit Write Agent"
	id := uuid()
	runs := 0
	turn := func(prompt string, args ...string) {
		t.Helper()
		seq := lastSeq(srv)
		sb.run(t, claude.timeout, command, append([]string{"-p", prompt, "--model", claudeModel, "--allowedTools", tools}, args...)...)
		runs++
		if bad := apiRejectedSince(srv, seq); len(bad) > 0 {
			t.Fatalf("%q: the model server refused Claude Code's own requests:%s", prompt, describe(bad))
		}
	}
	turn(prompt("look", "What does shot.png show?"), "--session-id", id)
	turn(prompt("par", "Look at shot.png, main.go and the folder together."), "--resume", id)
	turn(prompt("sub", "Have a subagent read the project."), "--resume", id)
	for _, task := range []string{"look", "par", "sub", "subwork"} {
		if ex := exchangesOf(srv, task); len(ex) == 0 || ex[len(ex)-1].Step != len(turns[task].Steps) {
			t.Fatalf("Claude Code did not run the scripted %s turn to its answer (%d requests)", task, len(ex))
		}
	}
	file := claude.session(t, sb, id)
	agents, _ := filepath.Glob(filepath.Join(filepath.Dir(file), id, "subagents", "agent-*.jsonl"))
	if len(agents) != 1 {
		t.Fatalf("want the subagent's file beside the session, found %v", agents)
	}
	// The session holds the shapes this test is about.
	for _, f := range []string{file, agents[0]} {
		off, images := offChain(t, f)
		report("Claude Code %s: %s holds %d tool results off the parentUuid chain (%d with an image)", version, filepath.Base(f), off, images)
		if off == 0 {
			t.Fatalf("%s: Claude Code wrote every tool result on the parentUuid chain; the test no longer meets the shape it is about", f)
		}
	}
	// The calls of the turns before the last, whose images
	// strip-attachments replaces (the last turn is kept whole).
	earlier := map[string]bool{}
	for _, task := range []string{"look", "par"} {
		for _, ex := range exchangesOf(srv, task) {
			for _, c := range ex.Reply.Calls {
				earlier[c.ID] = true
			}
		}
	}
	resume := func(t *testing.T, label, strategy string, original *modelserver.Conversation) {
		// The earlier turns are open to every strategy; turn-window keeps
		// the last two.
		args := []string{"--strategy", strategy, "--keep-last", "1", "--turns", "2", file}
		if strategy == "budget" {
			full := sb.compact(t, bin, "--dry-run", "--strategy", "strip-reasoning", file)
			args = []string{"--budget", fmt.Sprint(full.TokensBefore / 2), "--keep-last", "1", file}
		}
		res := sb.compact(t, bin, args...)
		if res.TokensAfter >= res.TokensBefore && !strings.HasPrefix(label, "compacted-") && strategy != "strip-attachments" {
			t.Errorf("the %s compaction saved nothing (%d → %d tokens): the fork resumed below would not test it", label, res.TokensBefore, res.TokensAfter)
		}
		checkLoaded(t, res.ForkPath)
		forkID := claude.idOf(t, res.ForkPath)
		task := "resume-" + label
		seq := lastSeq(srv)
		stdout, stderr, err := sb.try(claude.timeout, command, "-p", prompt(task, "Carry on from here."), "--model", claudeModel, "--allowedTools", tools, "--resume", forkID)
		runs++
		if bad := apiRejectedSince(srv, seq); len(bad) > 0 {
			t.Fatalf("Claude Code resumed the %s fork with requests the API would refuse:%s", label, describe(bad))
		}
		if err != nil {
			t.Fatalf("Claude Code could not resume the %s fork: %v\n--- stdout\n%s\n--- stderr\n%s", label, err, tail(stdout, 2000), tail(stderr, 3000))
		}
		ex := exchangesOf(srv, task)
		if len(ex) == 0 || ex[len(ex)-1].Step != 1 {
			t.Fatalf("the resumed %s fork did not run its tool loop to the answer (%d requests)", label, len(ex))
		}
		req := ex[0].Conversation
		kept, images, stripped := 0, 0, 0
		for _, it := range req.Items {
			switch {
			case it.Kind == modelserver.KindText && (strings.Contains(it.Text, "[Tool use interrupted]") || strings.Contains(it.Text, "[Tool use removed]")):
				t.Errorf("the resumed %s fork sent Claude Code's stand-in for a call: %q", label, it.Text)
			case it.Kind != modelserver.KindResult:
				continue
			case strings.Contains(it.Text, "[Tool result missing due to internal error]") || strings.Contains(it.Text, "Orphaned tool result removed"):
				t.Errorf("the resumed %s fork sent Claude Code's stand-in for a lost result: call %s: %q", label, it.CallID, it.Text)
			}
			orig, ok := resultOf(original, it.CallID)
			if !ok {
				continue
			}
			kept++
			images += it.Images
			switch {
			case strategy == "strip-reasoning" && (it.Text != orig.Text || it.Images != orig.Images):
				t.Errorf("strip-reasoning changed the result of %s: %d images %q, the session sent %d images %q", it.CallID, it.Images, it.Text, orig.Images, orig.Text)
			case strategy == "strip-attachments" && earlier[it.CallID] && orig.Images > 0:
				if it.Images > 0 {
					t.Errorf("strip-attachments kept %d images in the result of %s", it.Images, it.CallID)
				}
				stripped++
			}
		}
		if strategy == "strip-reasoning" {
			// It removes no call, no result and no answer: the resumed
			// request carries every one the session's did (after Claude
			// Code's own compaction, the answer it preserved too).
			for _, it := range original.Items {
				if it.Kind == modelserver.KindText && it.Role == "assistant" && !slices.Contains(req.Texts("assistant"), it.Text) {
					t.Errorf("the resumed strip-reasoning fork lacks the answer %q the session sent", it.Text)
				}
				if it.Kind != modelserver.KindCall && it.Kind != modelserver.KindResult {
					continue
				}
				if !slices.ContainsFunc(req.Items, func(g modelserver.Item) bool { return g.Kind == it.Kind && g.CallID == it.CallID }) {
					t.Errorf("the resumed strip-reasoning fork lacks the %s %s (%s) the session sent", it.Kind, it.CallID, it.Name)
				}
			}
		}
		if strategy == "strip-attachments" && stripped == 0 {
			t.Errorf("the strip-attachments fork replaced no image of an earlier turn")
		}
		report("Claude Code %s: the %s fork (%d → %d tokens) resumed; its first request carries %d results of the session's (%d images), %d requests, every one accepted", version, label, res.TokensBefore, res.TokensAfter, kept, images, len(ex))
	}
	last := exchangesOf(srv, "sub")
	before := last[len(last)-1].Conversation
	for _, s := range strategies {
		t.Run(s, func(t *testing.T) { resume(t, s, s, before) })
	}

	// The subagent's file: forked, every call kept with its result.
	res := sb.compact(t, bin, "--strategy", "strip-reasoning", agents[0])
	checkLoaded(t, res.ForkPath)

	// Claude Code compacts the session itself, then calls tools in
	// parallel again; forks of what follows its boundary resume too.
	turn("/compact", "--resume", id)
	if !bytes.Contains(readBytes(t, file), []byte(`"subtype":"compact_boundary"`)) {
		t.Fatalf("/compact wrote no compact_boundary")
	}
	turn(prompt("after", "Check again: shot.png, the README, main.go's length."), "--resume", id)
	if ex := exchangesOf(srv, "after"); len(ex) == 0 || ex[len(ex)-1].Step != len(turns["after"].Steps) {
		t.Fatalf("Claude Code did not run the scripted after turn to its answer")
	}
	last = exchangesOf(srv, "after")
	after := last[len(last)-1].Conversation
	for _, s := range []string{"strip-reasoning", "auto"} {
		t.Run("compacted/"+s, func(t *testing.T) { resume(t, "compacted-"+s, s, after) })
	}
	report("Claude Code %s: %d runs of the agent; the subagent's file forked with every result kept", version, runs)
}

// apiRejectedSince is rejectedSince for the API's routes: older Claude
// Code releases also probe the server's root, which no API serves.
func apiRejectedSince(srv *modelserver.Server, seq int) []modelserver.Exchange {
	var out []modelserver.Exchange
	for _, e := range rejectedSince(srv, seq) {
		if e.API != "" {
			out = append(out, e)
		}
	}
	return out
}

// claudeVersion asks a Claude Code command for its version.
func claudeVersion(t *testing.T, command string) string {
	t.Helper()
	out, err := exec.Command(command, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", command, err)
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return v
}

// writePNG writes a small real PNG: a red rule across a white field.
func writePNG(t *testing.T, path string) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 96, 48))
	for x := 0; x < 96; x++ {
		for y := 0; y < 48; y++ {
			img.Set(x, y, color.White)
		}
		img.Set(x, 20, color.RGBA{R: 200, A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// offChain counts the tool results of a Claude Code file that are not on
// the parentUuid chain from its last user or assistant row (and of those,
// the ones holding an image): read here row by row, apart from compactd.
func offChain(t *testing.T, path string) (off, images int) {
	t.Helper()
	type row struct {
		Type    string  `json:"type"`
		UUID    string  `json:"uuid"`
		Parent  *string `json:"parentUuid"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	var rows []row
	byUUID := map[string]int{}
	leaf := -1
	for l := range bytes.Lines(readBytes(t, path)) {
		var r row
		if json.Unmarshal(l, &r) != nil || r.UUID == "" {
			continue
		}
		byUUID[r.UUID] = len(rows)
		if r.Type == "user" || r.Type == "assistant" {
			leaf = len(rows)
		}
		rows = append(rows, r)
	}
	on := map[int]bool{}
	for i := leaf; i >= 0 && !on[i]; {
		on[i] = true
		if rows[i].Parent == nil {
			break
		}
		next, ok := byUUID[*rows[i].Parent]
		if !ok {
			break
		}
		i = next
	}
	for i, r := range rows {
		if r.Type == "user" && !on[i] && bytes.Contains(r.Message.Content, []byte(`"tool_result"`)) {
			off++
			if bytes.Contains(r.Message.Content, []byte(`"type":"image"`)) {
				images++
			}
		}
	}
	return off, images
}

// checkLoaded reads a fork as Claude Code loads it (the codec's Loader)
// and fails on a call without its result in the next message.
func checkLoaded(t *testing.T, path string) {
	t.Helper()
	data := readBytes(t, path)
	c, err := format.Detect(path, data)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	l, ok := c.(format.Loader)
	if !ok {
		t.Fatalf("the %s codec has no Loader", c.Format())
	}
	msgs, err := l.Load(tr)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for i, m := range msgs {
		for _, p := range m.Parts {
			if p.Kind != transcript.PartToolCall {
				continue
			}
			calls++
			if i+1 >= len(msgs) || !slices.ContainsFunc(msgs[i+1].Parts, func(q transcript.Part) bool {
				return q.Kind == transcript.PartToolResult && q.ToolCallID == p.ToolCallID
			}) {
				t.Errorf("%s: call %s (%s) has no result in the next message, as Claude Code loads the fork", filepath.Base(path), p.ToolCallID, p.ToolName)
			}
		}
	}
	if calls == 0 {
		t.Logf("%s keeps no tool call", filepath.Base(path))
	}
}
