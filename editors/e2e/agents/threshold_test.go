package agents

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pelletier/go-toml/v2"

	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// TestRealAgentThresholdGrid (issue 34) holds compactd's mark of an agent's
// own compaction to the agent itself: each case configures one real agent
// (its launch environment, its settings files, its config), drives it
// against the model server until it compacts on its own, and compares where
// it did with compactd's mark on every surface — `compactd gauge --json`,
// `compactd serve`'s gauge through a real LSP client, MCP context_status
// and `compactd statusline`. Each must be within 2 % of the window of the
// point the agent recorded (Claude Code's compact_boundary preTokens,
// Codex's last token count before its compacted record, Gemini CLI's prompt
// before its compression, Qwen Code's chat_compression originalTokenCount).
// A case that switches auto-compaction off drives the agent past the point
// where it would compact otherwise: the agent must not compact, and every
// surface must say it is off.
//
// The drive is two runs of the agent: a coarse one reads large files until
// the context is 8 % of the window short of compactd's mark, a fine one then
// reads 0.7 % of the window a request, to 6 % past it. A
// mark off by more than the margin is found all the same: the agent
// compacts in the coarse run, or not at all, and the case fails on the gap
// between the last two requests before the compaction, which must be small
// enough to tell where the agent compacted (2 % of the window).
func TestRealAgentThresholdGrid(t *testing.T) {
	enabled(t)
	bin := compactdBin(t)
	start := time.Now()
	var mu sync.Mutex
	var rows []gridRow
	t.Cleanup(func() {
		sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
		var b strings.Builder
		fmt.Fprintf(&b, "threshold grid: %d cases, %s wall time\n", len(rows), time.Since(start).Round(time.Second))
		fmt.Fprintf(&b, "%-44s %-22s %-28s %-28s %s\n", "case", "agent", "agent compacted at", "compactd's mark", "off (% of window)")
		for _, r := range rows {
			fmt.Fprintf(&b, "%-44s %-22s %-28s %-28s %s\n", r.name, r.agent, r.compacted, r.mark, r.off)
		}
		report("%s", strings.TrimRight(b.String(), "\n"))
		t.Log("\n" + b.String())
	})
	for _, c := range gridCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			row := runGridCase(t, c, bin)
			mu.Lock()
			rows = append(rows, row)
			mu.Unlock()
		})
	}
}

// A gridCase is one configuration of one agent's auto-compaction.
type gridCase struct {
	name  string
	agent string // "claude", "codex", "gemini", "qwen"
	// model is Claude Code's --model ("" = claudeModel).
	model string
	// flags are the agent's own command-line flags (Codex's --profile).
	flags []string
	// env is added to the launch environment (the agent's and compactd's,
	// as when both start from one shell); @SANDBOX@ is the sandbox's
	// folder.
	env []string
	// files are settings files to write, by path, as JSON (merged into
	// the file the agent's configuration already wrote) or, for a string,
	// as that text.
	files func(sb *sandbox) map[string]any
	// etc are files of /etc by their path under it (Claude Code's
	// managed settings, claude-code/managed-settings.json; Gemini CLI's
	// system settings, gemini-cli/settings.json), seen by the agent and
	// compactd alike in a private mount namespace: the agents read them
	// from those fixed paths only.
	etc map[string]any
	// beyond is where the agent would compact were its auto-compaction
	// on, for a case that may switch it off: when compactd says it is
	// off, the drive goes past this point and the agent must not compact.
	beyond int
}

// A gridRow is one line of the grid's report.
type gridRow struct {
	name, agent, compacted, mark, off string
}

// gridDriver is how the grid drives one agent.
type gridDriver struct {
	label string
	// name is the folder under npm/ and the cache; command its executable.
	name, command string
	configure     func(t *testing.T, sb *sandbox, srv *modelserver.Server)
	// args are the command's arguments for one prompt: a new session when
	// id is "", else session id; newID is the session's id when the
	// driver picks it ("" when the agent does).
	args func(sb *sandbox, c gridCase, id, prompt string) (args []string, newID string)
	// session finds the session's file and id once a run wrote it.
	session func(t *testing.T, sb *sandbox, id string) (file, sessionID string)
	// compacted reads the agent's own first compaction from its session:
	// the context size it recorded compacting at.
	compacted func(t *testing.T, file string) (int, bool)
	// lspInit are the LSP client's initializationOptions.
	lspInit map[string]any
	// root is the folder the agent writes its sessions under; usageOf
	// reads the context size a session line records, if any.
	root    func(sb *sandbox) string
	usageOf func(line []byte) (int, bool)
}

// run runs one prompt to its end and returns the session's file and id.
func (d gridDriver) run(t *testing.T, sb *sandbox, c gridCase, command, id, prompt string) (string, string) {
	t.Helper()
	args, newID := d.args(sb, c, id, prompt)
	sb.run(t, 5*time.Minute, command, args...)
	if newID != "" {
		id = newID
	}
	return d.session(t, sb, id)
}

func gridDriverOf(t *testing.T, name string) gridDriver {
	switch name {
	case "claude":
		return gridDriver{label: claude.label, name: "claude", command: "claude", configure: claude.configure,
			args: func(sb *sandbox, c gridCase, id, prompt string) ([]string, string) {
				model := c.model
				if model == "" {
					model = claudeModel
				}
				args := append([]string{"-p", prompt, "--model", model, "--allowedTools", "Read Bash Edit Write"}, c.flags...)
				if id == "" {
					id = uuid()
					return append(args, "--session-id", id), id
				}
				return append(args, "--resume", id), id
			},
			session: func(t *testing.T, sb *sandbox, id string) (string, string) { return claude.session(t, sb, id), id },
			root:    claude.root, usageOf: claude.usageOf,
			compacted: func(t *testing.T, file string) (int, bool) {
				pre, trigger, ok := claudeBoundary(t, file)
				if ok && trigger != "auto" {
					t.Fatalf("Claude Code compacted with trigger %q, not on its own", trigger)
				}
				return pre, ok
			},
		}
	case "codex":
		return gridDriver{label: codex.label, name: "codex", command: "codex", configure: codex.configure,
			args: func(sb *sandbox, c gridCase, id, prompt string) ([]string, string) {
				args := append([]string{"exec"}, c.flags...)
				if id == "" {
					return append(args, "--skip-git-repo-check", prompt), ""
				}
				return append(args, "--skip-git-repo-check", "resume", id, prompt), id
			},
			session: func(t *testing.T, sb *sandbox, id string) (string, string) {
				file := codex.session(t, sb, "")
				return file, codex.idOf(t, file)
			},
			root: codex.root, usageOf: codex.usageOf,
			compacted: codexCompaction,
		}
	case "gemini":
		return gridDriver{label: gemini.label, name: "gemini", command: "gemini", lspInit: gemini.lspInit,
			configure: func(t *testing.T, sb *sandbox, srv *modelserver.Server) {
				gemini.configure(t, sb, srv)
				// Trusted as a user trusts a folder (headless, an untrusted
				// folder is refused): in trustedFolders.json, which compactd
				// reads too, not by --skip-trust, which it cannot see.
				writeSetting(t, filepath.Join(sb.home, ".gemini", "trustedFolders.json"), map[string]any{sb.project: "TRUST_FOLDER"})
				// A drive is many reads of one prompt: past 30 requests Gemini
				// CLI asks the model whether it loops, takes the scripted
				// answer for yes and breaks off its own tool loop.
				writeSetting(t, filepath.Join(sb.home, ".gemini", "settings.json"), map[string]any{"model": map[string]any{"disableLoopDetection": true}})
			},
			args: func(sb *sandbox, c gridCase, id, prompt string) ([]string, string) {
				args := append([]string{"--yolo", "-m", geminiModel, "-p", prompt}, c.flags...)
				if id == "" {
					id = uuid()
					return append(args, "--session-id", id), id
				}
				return append(args, "--resume", id), id
			},
			session: func(t *testing.T, sb *sandbox, id string) (string, string) { return gemini.session(t, sb, id), id },
			root:    gemini.root, usageOf: gemini.usageOf,
			compacted: geminiCompression,
		}
	case "qwen":
		return gridDriver{label: qwenAgent.label, name: "qwen", command: "qwen", configure: qwenAgent.configure,
			args: func(sb *sandbox, c gridCase, id, prompt string) ([]string, string) {
				args := append([]string{"--auth-type", "openai", "-m", newAgentModel, "--yolo"}, c.flags...)
				if id == "" {
					id = uuid()
					return append(args, "--session-id", id, prompt), id
				}
				return append(args, "--resume", id, prompt), id
			},
			session: func(t *testing.T, sb *sandbox, id string) (string, string) {
				return filepath.Join(sb.home, ".qwen", "projects", claudeSlug(sb.project), "chats", id+".jsonl"), id
			},
			root: func(sb *sandbox) string { return filepath.Join(sb.home, ".qwen", "projects") },
			usageOf: func(line []byte) (int, bool) {
				var r struct {
					Type  string `json:"type"`
					Usage *struct {
						Total int `json:"totalTokenCount"`
					} `json:"usageMetadata"`
				}
				if json.Unmarshal(line, &r) != nil || r.Type != "assistant" || r.Usage == nil || r.Usage.Total == 0 {
					return 0, false
				}
				return r.Usage.Total, true
			},
			compacted: qwenCompression,
		}
	}
	t.Fatalf("no grid driver for %s", name)
	return gridDriver{}
}

func runGridCase(t *testing.T, c gridCase, bin string) gridRow {
	d := gridDriverOf(t, c.agent)
	command, version := installedAgent(t, d.name, d.command)
	sb := newSandbox(t)
	script := &modelserver.Script{Turns: map[string]modelserver.Turn{}}
	srv, err := modelserver.Start(modelserver.Options{Script: script, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	d.configure(t, sb, srv)
	for _, kv := range c.env {
		sb.setenv(strings.ReplaceAll(kv, "@SANDBOX@", sb.root))
	}
	if c.files != nil {
		for path, content := range c.files(sb) {
			writeSetting(t, path, content)
		}
	}
	if c.etc != nil {
		sb.overlayEtc(t, c.etc)
	}
	agentLabel := d.label + " " + version
	t.Logf("%s in %s", agentLabel, sb.root)

	lsp := startLSP(t, sb, bin, d.lspInit)
	usage := watchUsage(t, d.root(sb), d.usageOf)
	// The first turn: a shell step, then the answer, which the model server
	// holds until compactd's marks are read: they are read while the agent
	// runs, as a user reads them (compactd reads the running agent's
	// environment and command line where the OS tells).
	held, release := make(chan struct{}), make(chan struct{})
	var holdOnce sync.Once
	script.Turns["hello"] = modelserver.Turn{Thinking: thinking,
		Steps:  [][]modelserver.Action{{{Kind: modelserver.Shell, Command: "echo hello"}}},
		Answer: "Hello: the inventory project is here. (answer hello)",
		Hold: func() {
			holdOnce.Do(func() { close(held) })
			<-release
		}}
	args, id := d.args(sb, c, "", prompt("hello", "Hello."))
	var ran runResult
	exited := make(chan struct{})
	go func() {
		ran.stdout, ran.stderr, ran.err = sb.try(5*time.Minute, command, args...)
		close(exited)
	}()
	var releaseOnce sync.Once
	finish := func() {
		t.Helper()
		releaseOnce.Do(func() { close(release) })
		<-exited
		if ran.err != nil {
			t.Fatalf("%s %s: %v\n--- stdout\n%s\n--- stderr\n%s", d.command, strings.Join(args, " "), ran.err, tail(ran.stdout, 2000), tail(ran.stderr, 3000))
		}
	}
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	select {
	case <-held:
	case <-exited:
		finish()
		t.Fatalf("%s ended its first turn before asking for its answer", d.label)
	}
	file, id := d.session(t, sb, id)
	// The agent's first response is in the session (which model it runs).
	usage.nth(t, file, 1, 2*time.Minute)
	marks := gridMarks(t, sb, bin, lsp, c.agent, file)
	finish()
	checkAccepted(t, srv, 0, "the first turn")
	mark := marks[0]
	window := mark.window
	tolerance := 0.02 * float64(window)
	describeMark := func(m surfaceMark) string {
		if m.off {
			return "off"
		}
		return fmt.Sprint(m.at)
	}
	for _, m := range marks[1:] {
		if m.off != mark.off || !m.off && abs(m.at-mark.at) > int(tolerance) {
			t.Errorf("%s marks %s, compactd gauge --json %s (%s)", m.surface, describeMark(m), describeMark(mark), mark.text)
		}
	}
	off := mark.off
	if off && c.beyond == 0 {
		t.Fatalf("compactd marks %s's auto-compaction off (%s); the case names no point to drive past", d.label, mark.text)
	}

	// The drive: a coarse run to 8 % short of the target, a fine run past it.
	target := mark.at
	if off {
		target = c.beyond
	}
	fills := newFiller(t, sb.project)
	start := lastContext(srv)
	coarse, fine := window/12, window/150
	var coarseSteps [][]modelserver.Action
	// The fine run covers at most 12 steps below the target and 10 past it:
	// Gemini CLI asks the model whether it is looping after 30 requests
	// of one prompt, and breaks off.
	below, above := min(window*8/100, 12*fine), min(window*6/100, 10*fine)
	if off {
		coarseSteps = fills.steps(target+window/20-start, coarse)
	} else {
		coarseSteps = fills.steps(target-below-start, coarse)
	}
	if len(coarseSteps) > 0 {
		script.Turns["coarse"] = modelserver.Turn{Thinking: thinking, Steps: coarseSteps, Answer: "Read the large files. (answer coarse)", EndOnSummary: true}
		seq := lastSeq(srv)
		d.run(t, sb, c, command, id, prompt("coarse", "Read the large files one by one."))
		checkAccepted(t, srv, seq, "the coarse run")
	}
	if !off {
		if _, done := d.compacted(t, file); !done {
			reached := lastContext(srv)
			// A request each 1/150 of the window, past the mark.
			script.Turns["fine"] = modelserver.Turn{Thinking: thinking, Steps: fills.steps(target+above-reached, fine), Answer: "Read the small files. (answer fine)", EndOnSummary: true}
			seq := lastSeq(srv)
			d.run(t, sb, c, command, id, prompt("fine", "Read the small files one by one."))
			checkAccepted(t, srv, seq, "the fine run")
		}
	}
	row := gridRow{name: c.name, agent: agentLabel, mark: fmt.Sprintf("%s (%s)", describeMark(mark), mark.text)}
	at, compacted := d.compacted(t, file)
	prompts := growingPrompts(srv)
	if off {
		reached := 0
		if len(prompts) > 0 {
			reached = prompts[len(prompts)-1]
		}
		row.compacted = fmt.Sprintf("none up to %d", reached)
		row.off = "-"
		if compacted {
			row.compacted = fmt.Sprint(at)
			t.Errorf("%s compacted at %d tokens; compactd says its auto-compaction is off (%s)", d.label, at, mark.text)
		}
		if reached <= c.beyond {
			t.Errorf("the drive reached %d tokens, not past %d, where %s would compact with auto-compaction on", reached, c.beyond, d.label)
		}
		return row
	}
	if !compacted {
		reached := 0
		if len(prompts) > 0 {
			reached = prompts[len(prompts)-1]
		}
		row.compacted = fmt.Sprintf("none up to %d", reached)
		t.Errorf("%s did not compact up to %d tokens; compactd marks %s (%s)", d.label, reached, describeMark(mark), mark.text)
		return row
	}
	// The resolution: the growth between the last two requests before the
	// compaction.
	step := 0
	if n := len(prompts); n >= 2 {
		step = prompts[n-1] - prompts[n-2]
	}
	row.compacted = fmt.Sprintf("%d (step %d)", at, step)
	if float64(step) > tolerance {
		t.Errorf("%s compacted at %d tokens after a step of %d: too coarse to tell where (the drive expected it near %d)", d.label, at, step, target)
	}
	worst := 0.0
	for _, m := range marks {
		off := 100 * float64(abs(m.at-at)) / float64(window)
		worst = max(worst, off)
		if m.off || float64(abs(m.at-at)) > tolerance {
			t.Errorf("%s compacted at %d tokens; %s marks %s, %.2f %% of the %d window off (bar: 2 %%)", d.label, at, m.surface, describeMark(m), off, window)
		}
	}
	row.off = fmt.Sprintf("%.2f %%", worst)
	return row
}

// checkAccepted fails the test when the model server refused a request the
// agent sent since seq.
func checkAccepted(t *testing.T, srv *modelserver.Server, seq int, what string) {
	t.Helper()
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("%s: the model server refused the agent's requests:%s", what, describe(bad))
	}
}

// lastContext is the context the last scripted response left.
func lastContext(srv *modelserver.Server) int {
	n := 0
	for _, e := range srv.Exchanges() {
		if e.Scripted && !e.CountOnly && e.Status == 200 {
			n = e.Usage.Context()
		}
	}
	return n
}

// growingPrompts are the prompts of the agent's scripted requests, in
// order, up to the first that is smaller than the one before (the agent's
// compaction shrinks the conversation).
func growingPrompts(srv *modelserver.Server) []int {
	var out []int
	for _, e := range srv.Exchanges() {
		if !e.Scripted || e.CountOnly || e.Summary || e.Status != 200 {
			continue
		}
		if len(out) > 0 && e.Usage.Prompt < out[len(out)-1] {
			break
		}
		out = append(out, e.Usage.Prompt)
	}
	return out
}

// A filler writes the files the drive reads, each of a given size in
// tokens, every one different.
type filler struct {
	t       *testing.T
	dir     string
	counter *tokens.Counter
	n       int
}

func newFiller(t *testing.T, dir string) *filler {
	counter, err := tokens.New(tokens.O200kBase, tokens.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	return &filler{t: t, dir: dir, counter: counter}
}

// file writes a file of about n tokens and returns its path.
func (f *filler) file(n int) string {
	f.n++
	path := filepath.Join(f.dir, fmt.Sprintf("fill%03d.txt", f.n))
	var b strings.Builder
	for l, have := 0, 0; have < n; l++ {
		line := fmt.Sprintf("file %d line %d: inventory item %d moves from bin %d to shelf %d after audit %d.\n", f.n, l, f.n*997+l, l*13%41, l*7%29, f.n*l%53)
		have += f.counter.Text(line)
		b.WriteString(line)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return path
}

// maxFileTokens keeps each file under what every agent's read tool returns
// whole.
const maxFileTokens = 6000

// steps are reads that add about total tokens to the context, each step
// (one request) adding about per: one file of per tokens, or several
// files read together when per is larger than a file may be.
func (f *filler) steps(total, per int) [][]modelserver.Action {
	var steps [][]modelserver.Action
	for total > 0 {
		n := min(per, total)
		var step []modelserver.Action
		for n > 0 {
			size := min(n, maxFileTokens)
			step = append(step, modelserver.Action{Kind: modelserver.Read, Path: f.file(size)})
			n -= size
			total -= size
		}
		steps = append(steps, step)
	}
	return steps
}

// writeSetting writes a settings file: JSON (TOML for a .toml file) merged
// into what the file holds, or a string as it is.
func writeSetting(t *testing.T, path string, content any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var data []byte
	switch v := content.(type) {
	case string:
		data = []byte(v)
	case map[string]any:
		merged := map[string]any{}
		isTOML := filepath.Ext(path) == ".toml"
		if b, err := os.ReadFile(path); err == nil {
			if isTOML {
				err = toml.Unmarshal(b, &merged)
			} else {
				err = json.Unmarshal(b, &merged)
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		mergeJSON(merged, v)
		var err error
		if isTOML {
			var b bytes.Buffer
			err = toml.NewEncoder(&b).Encode(merged)
			data = b.Bytes()
		} else {
			data, err = json.MarshalIndent(merged, "", "  ")
		}
		if err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("%s: settings of type %T", path, content)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// mergeJSON merges src into dst, objects key by key.
func mergeJSON(dst, src map[string]any) {
	for k, v := range src {
		if sub, ok := v.(map[string]any); ok {
			if have, ok := dst[k].(map[string]any); ok {
				mergeJSON(have, sub)
				continue
			}
		}
		dst[k] = v
	}
}

// overlayEtc shows files at /etc/<path> to the agent and compactd without
// touching /etc: every process of the sandbox from now on runs in a user
// and mount namespace of its own where /etc is a read-only overlay of the
// sandbox's etc folder on the real one.
func (sb *sandbox) overlayEtc(t *testing.T, files map[string]any) {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		missing(t, "files in /etc: the agents read them from fixed paths only, and the namespace that shows them a temp folder there needs unshare (util-linux): %v", err)
	}
	etc := filepath.Join(sb.root, "etc")
	for rel, content := range files {
		path := filepath.Join(etc, filepath.FromSlash(rel))
		writeSetting(t, path, content)
		// As an administrator's: not writable by others (Gemini CLI
		// skips a system file that is).
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sb.wrap = []string{"unshare", "--user", "--map-root-user", "--mount", "--propagation", "private", "--",
		"sh", "-c", `mount -t overlay overlay -o "lowerdir=$0:/etc" /etc && exec "$@"`, etc}
	// The namespace works here, or the case cannot run.
	for rel := range files {
		if out, errOut, err := sb.try(time.Minute, "cat", "/etc/"+rel); err != nil || !strings.Contains(out, "{") {
			missing(t, "files in /etc: a user and mount namespace with /etc overlaid is not available here (%v): %s", err, errOut)
		}
	}
}

// A surfaceMark is where one of compactd's surfaces marks the agent's own
// compaction.
type surfaceMark struct {
	surface string
	at      int
	off     bool
	text    string
	// window is the window the agent measures against.
	window int
}

// gridMarks reads compactd's mark of the agent's compaction of the session
// at file on every surface: `compactd gauge --json` first, then compactd
// serve's gauge, MCP context_status and, for Claude Code, its status line.
func gridMarks(t *testing.T, sb *sandbox, bin string, lsp *lspClient, agent, file string) []surfaceMark {
	t.Helper()
	var gaugeMark, lspMark, mcpMark surfaceMark
	// compactd gauge --json.
	var rows []struct {
		Model         string `json:"model"`
		ContextWindow int    `json:"contextWindow"`
		Tokens        int    `json:"tokens"`
		AutoCompact   *struct {
			At       int    `json:"at"`
			Window   int    `json:"window"`
			Disabled bool   `json:"disabled"`
			Source   string `json:"source"`
			Text     string `json:"text"`
		} `json:"autoCompact"`
	}
	if err := json.Unmarshal([]byte(sb.run(t, time.Minute, bin, "gauge", "--json", file)), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("compactd gauge --json %s: %v %v", file, err, rows)
	}
	g := rows[0]
	if g.AutoCompact == nil {
		t.Fatalf("compactd gauge --json marks no auto-compaction for %s", file)
	}
	window := g.ContextWindow
	if g.AutoCompact.Window > 0 {
		window = g.AutoCompact.Window
	}
	gaugeMark = surfaceMark{surface: "compactd gauge --json", at: g.AutoCompact.At, off: g.AutoCompact.Disabled, text: g.AutoCompact.Text, window: window}

	// compactd serve's gauge, through the LSP client, once it shows the
	// session as the command line does (the first notes come before the
	// agent wrote which model it runs; the agent may add a line or two
	// since).
	note, ok := lsp.waitGauge(file, 0, time.Minute, func(n gaugeNote) bool {
		return within(n.Tokens, g.Tokens, 0.05) && (n.AutoCompactAt > 0 || n.AutoCompactOff)
	})
	if !ok {
		t.Fatalf("compactd serve sent no gauge of %d tokens marking the agent's compaction for %s (notifications: %v)", g.Tokens, file, tokensOf(lsp.gaugesOf(file)))
	}
	lspMark = surfaceMark{surface: "compactd serve's gauge (LSP)", at: note.AutoCompactAt, off: note.AutoCompactOff}

	// MCP context_status, from compactd mcp as the agent starts it.
	st := contextStatus(t, sb, bin, agent, file)
	mcpMark = surfaceMark{surface: "MCP context_status", at: st.AutoCompactAt}
	if st.AutoCompact != nil {
		mcpMark.off, mcpMark.text = st.AutoCompact.Disabled, st.AutoCompact.Text
	}
	marks := []surfaceMark{gaugeMark, lspMark, mcpMark}
	if agent != "claude" {
		return marks
	}

	// compactd statusline, fed Claude Code's status line payload. Claude
	// Code names the model's window as it runs it (1M for a model it runs
	// with 1M natively, which compactd's gauge may not know): the larger
	// of the gauge's and the mark's.
	payload := map[string]any{"hook_event_name": "Status", "transcript_path": file, "cwd": sb.project,
		"model":          map[string]any{"id": g.Model, "display_name": g.Model},
		"context_window": map[string]any{"context_window_size": max(g.ContextWindow, window)}}
	line := sb.statusline(t, bin, payload)
	status := surfaceMark{surface: "compactd statusline", text: line}
	switch {
	case strings.Contains(line, "auto-compaction off"):
		status.off = true
	default:
		i := strings.Index(line, "auto-compacts at ")
		if i < 0 {
			t.Fatalf("compactd statusline shows no auto-compaction mark: %q", line)
		}
		word := strings.Fields(line[i+len("auto-compacts at "):])[0]
		status.at = parseShort(t, word)
	}
	return append(marks, status)
}

// runResult is how an agent's run ended.
type runResult struct {
	stdout, stderr string
	err            error
}

// parseShort reads a count as the status line writes it (950, 1.2k, 156k,
// 1.05M); it is exact to the rounding of that form.
func parseShort(t *testing.T, s string) int {
	t.Helper()
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1e3, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, strings.TrimSuffix(s, "M")
	}
	var f float64
	if _, err := fmt.Sscanf(s, "%g", &f); err != nil {
		t.Fatalf("status line count %q: %v", s, err)
	}
	return int(f*mult + 0.5)
}

// statusline runs compactd statusline with payload on stdin, as Claude
// Code runs its status line command.
func (sb *sandbox) statusline(t *testing.T, bin string, payload map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(payload)
	name, args := sb.command(bin, "statusline")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = sb.project, sb.env, bytes.NewReader(b)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil || errOut.Len() > 0 {
		t.Fatalf("compactd statusline: %v\n%s", err, errOut.String())
	}
	return strings.TrimSpace(out.String())
}

// gridStatus is the part of context_status the grid reads.
type gridStatus struct {
	Path          string `json:"path"`
	AutoCompactAt int    `json:"autoCompactAt"`
	AutoCompact   *struct {
		Disabled bool   `json:"disabled"`
		Text     string `json:"text"`
	} `json:"autoCompact"`
}

// contextStatus calls context_status about file through an MCP client
// connected to `compactd mcp --agent agent`, started as the agent starts
// it: in the project, with the agent's environment.
func contextStatus(t *testing.T, sb *sandbox, bin, agent, file string) gridStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name, args := sb.command(bin, "mcp", "--agent", agent)
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = sb.project, sb.env
	client := mcp.NewClient(&mcp.Implementation{Name: "compactd-e2e", Version: "0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to compactd mcp: %v", err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "context_status", Arguments: map[string]any{"session": file}})
	if err != nil {
		t.Fatalf("context_status: %v", err)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("context_status failed: %+v", res.Content)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("context_status answered %T, not text", res.Content[0])
	}
	var st gridStatus
	if err := json.Unmarshal([]byte(text.Text), &st); err != nil {
		t.Fatalf("context_status did not answer JSON: %v: %s", err, tail(text.Text, 500))
	}
	if canonical(st.Path) != canonical(file) {
		t.Fatalf("context_status answered about %s, not %s", st.Path, file)
	}
	return st
}

// codexCompaction reads Codex's first compaction of a rollout: the largest
// context its token counts recorded before the compacted record (Codex
// compacts once the context reaches its limit; the last count before the
// record is its summary request's).
func codexCompaction(t *testing.T, path string) (int, bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	last := 0
	for sc.Scan() {
		var r struct {
			Type    string `json:"type"`
			Payload struct {
				Type string `json:"type"`
				Info *struct {
					Last struct {
						Total int `json:"total_tokens"`
					} `json:"last_token_usage"`
				} `json:"info"`
			} `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		switch {
		case r.Type == "compacted":
			return last, true
		case r.Type == "event_msg" && r.Payload.Type == "token_count" && r.Payload.Info != nil:
			last = max(last, r.Payload.Info.Last.Total)
		}
	}
	return 0, false
}

// geminiCompression reads Gemini CLI's first compression of a session: the
// prompt its last response recorded before the history was replaced by a
// <state_snapshot> (Gemini CLI compresses once the last prompt reaches its
// threshold).
func geminiCompression(t *testing.T, path string) (int, bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	last := 0
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.Contains(line, []byte(`"$set"`)) && bytes.Contains(line, []byte("<state_snapshot>")) {
			return last, true
		}
		var r struct {
			Type   string `json:"type"`
			Tokens *struct {
				Input int `json:"input"`
			} `json:"tokens"`
		}
		if json.Unmarshal(line, &r) == nil && r.Type == "gemini" && r.Tokens != nil && r.Tokens.Input > 0 {
			last = r.Tokens.Input
		}
	}
	return 0, false
}

// qwenCompression reads Qwen Code's first compression of a session: the
// token count its chat_compression record says it compressed at.
func qwenCompression(t *testing.T, path string) (int, bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r struct {
			Subtype string `json:"subtype"`
			Payload struct {
				Info struct {
					Original int `json:"originalTokenCount"`
				} `json:"info"`
			} `json:"systemPayload"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Subtype == "chat_compression" {
			return r.Payload.Info.Original, true
		}
	}
	return 0, false
}

// claudeBoundary reads the first compact_boundary of a Claude Code
// session: the context size before it and what triggered it.
func claudeBoundary(t *testing.T, path string) (pre int, trigger string, ok bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r struct {
			Subtype string `json:"subtype"`
			Meta    struct {
				Trigger   string `json:"trigger"`
				PreTokens int    `json:"preTokens"`
			} `json:"compactMetadata"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Subtype == "compact_boundary" {
			return r.Meta.PreTokens, r.Meta.Trigger, true
		}
	}
	return 0, "", false
}
