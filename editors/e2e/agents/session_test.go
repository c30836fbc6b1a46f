package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

// A scripted turn of the coding session every agent runs.
type sessionTurn struct {
	task   string
	prompt string
	turn   func(project string) modelserver.Turn
}

const thinking = "Work through it step by step."

// sessionTurns are the session: reads, a shell, edits and a write, some
// calls issued together, a file read twice (something for dedup-tools).
var sessionTurns = []sessionTurn{
	{"t1", "Look around the inventory project and tell me what it does.", func(p string) modelserver.Turn {
		return modelserver.Turn{Thinking: thinking, Steps: [][]modelserver.Action{
			{{Kind: modelserver.Read, Path: p + "/main.go"}, {Kind: modelserver.Shell, Command: "ls -la " + p}},
			{{Kind: modelserver.Read, Path: p + "/README.md"}},
		}, Answer: "It is an in-memory inventory: Add records items, Take refuses to go below zero, and ToReorder lists the SKUs at or below their reorder level. (answer t1)"}
	}},
	{"t2", "Tidy the loop in ToReorder, it reads awkwardly.", func(p string) modelserver.Turn {
		return modelserver.Turn{Thinking: thinking, Steps: [][]modelserver.Action{
			{{Kind: modelserver.Read, Path: p + "/main.go"}},
			{{Kind: modelserver.Edit, Path: p + "/main.go", Old: "\tfor i := 0; i <= len(items)-1; i++ {", New: "\tfor i := range items {"}},
			{{Kind: modelserver.Shell, Command: "grep -n 'range items' " + p + "/main.go"}},
		}, Answer: "ToReorder now ranges over the items; the behaviour is unchanged. (answer t2)"}
	}},
	{"t3", "Add a helper that formats one item as a line of text.", func(p string) modelserver.Turn {
		return modelserver.Turn{Thinking: thinking, Steps: [][]modelserver.Action{
			{{Kind: modelserver.Write, Path: p + "/format.go", Content: "package main\n\nimport \"fmt\"\n\n// FormatItem renders one item as a line of text.\nfunc FormatItem(it Item) string {\n\treturn fmt.Sprintf(\"%s %-10s %5d (reorder at %d)\", it.SKU, it.Name, it.Quantity, it.Reorder)\n}\n"}},
			{{Kind: modelserver.Shell, Command: "cat " + p + "/format.go"}},
		}, Answer: "Added FormatItem in format.go. (answer t3)"}
	}},
	quickTurn("q1", "Does Take ever let a quantity go negative?", "No: Take refuses when fewer units are in stock."),
	quickTurn("q2", "Which SKUs does main report today?", "A-100 and C-300: both sit at or below their reorder level."),
	quickTurn("q3", "Is the inventory safe for concurrent use?", "No, the map has no lock; callers must serialize."),
	quickTurn("q4", "What happens when Add sees a known SKU?", "It adds to the existing quantity and keeps the first name."),
	quickTurn("q5", "Should ToReorder sort its result?", "It already does: the SKUs are sorted before the scan."),
	quickTurn("q6", "Any tests in the project?", "None yet; main exercises the happy path only."),
	quickTurn("q7", "Is go.mod's Go version fine?", "Yes, 1.21 covers everything the code uses."),
	{"t4", "Mention the helper in the README.", func(p string) modelserver.Turn {
		return modelserver.Turn{Thinking: thinking, Steps: [][]modelserver.Action{
			{{Kind: modelserver.Edit, Path: p + "/README.md", Old: "Run it with `go run .`; it prints the SKUs that need reordering.",
				New: "Run it with `go run .`; it prints the SKUs that need reordering.\nFormatItem (format.go) renders one item as a line of text."}},
		}, Answer: "The README now mentions FormatItem. (answer t4)"}
	}},
	{"t5", "Summarize what changed in this session.", func(p string) modelserver.Turn {
		return modelserver.Turn{Thinking: thinking, Steps: [][]modelserver.Action{
			{{Kind: modelserver.Shell, Command: "wc -l " + p + "/main.go " + p + "/format.go " + p + "/README.md"}},
		}, Answer: "Summary: ToReorder's loop is tidier, FormatItem lives in format.go, and the README mentions it. (answer t5)"}
	}},
}

// quickTurn is a question answered without tools: the session needs more
// turns than turn-window keeps (10) and summarize's buffer (4).
func quickTurn(task, question, answer string) sessionTurn {
	return sessionTurn{task, question, func(string) modelserver.Turn {
		return modelserver.Turn{Answer: answer + " (answer " + task + ")"}
	}}
}

func prompt(task, words string) string { return modelserver.TaskTag(task) + " " + words }

// resumeTurn is what the model does after a fork is resumed: one shell
// call (the tool loop works on the fork), then an answer.
func resumeTurn(label string) modelserver.Turn {
	return modelserver.Turn{Thinking: thinking, Steps: [][]modelserver.Action{{{Kind: modelserver.Shell, Command: "echo resumed " + label}}},
		Answer: "Resumed from the " + label + " fork; the work above stands."}
}

// resumeTolerance is how far a fork's gauge may be from the prompt of the
// first request the agent sends when it resumes the fork.
const resumeTolerance = 0.05

// figures collects what the suite measured, for its report.
var figures struct {
	sync.Mutex
	lines []string
}

func report(format string, args ...any) {
	figures.Lock()
	defer figures.Unlock()
	figures.lines = append(figures.lines, fmt.Sprintf(format, args...))
}

// sortedFigures returns the figures reported so far, grouped per agent (the
// agents run side by side, so their lines interleave).
func sortedFigures() []string {
	figures.Lock()
	defer figures.Unlock()
	rank := func(line string) int {
		for i, a := range []agent{claude, codex, gemini} {
			if strings.HasPrefix(line, a.label) {
				return i
			}
		}
		return 3
	}
	lines := append([]string(nil), figures.lines...)
	sort.SliceStable(lines, func(i, j int) bool { return rank(lines[i]) < rank(lines[j]) })
	return lines
}

// TestMain writes every figure the tests reported to $COMPACTD_AGENTS_REPORT
// once they all ended (run.sh runs the suite as several processes, each with
// its own file, and prints them together).
func TestMain(m *testing.M) {
	code := m.Run()
	if p := os.Getenv("COMPACTD_AGENTS_REPORT"); p != "" {
		if lines := sortedFigures(); len(lines) > 0 {
			if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "figures:", err)
			}
		}
	}
	os.Exit(code)
}

func TestRealAgents(t *testing.T) {
	enabled(t)
	bin := compactdBin(t)
	start := time.Now()
	// The agents run side by side (each in its own sandbox, with its own
	// model server and language server): they mostly wait on each other's
	// processes, and the suite's wall time is the slowest agent's.
	t.Cleanup(func() {
		report("suite wall time: %s", time.Since(start).Round(time.Second))
		t.Log("figures:\n" + strings.Join(sortedFigures(), "\n"))
	})
	for _, a := range []agent{claude, codex, gemini} {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			runAgent(t, a, bin)
		})
	}
}

// exchangesOf returns the exchanges scripted for task, in order.
func exchangesOf(srv *modelserver.Server, task string) []modelserver.Exchange {
	var out []modelserver.Exchange
	for _, e := range srv.Exchanges() {
		if e.Task == task && !e.CountOnly {
			out = append(out, e)
		}
	}
	return out
}

// rejectedSince returns the exchanges from seq on the server refused.
func rejectedSince(srv *modelserver.Server, seq int) []modelserver.Exchange {
	var out []modelserver.Exchange
	for _, e := range srv.Exchanges() {
		if e.Seq > seq && e.Status != 200 {
			out = append(out, e)
		}
	}
	return out
}

func lastSeq(srv *modelserver.Server) int {
	ex := srv.Exchanges()
	if len(ex) == 0 {
		return 0
	}
	return ex[len(ex)-1].Seq
}

func describe(ex []modelserver.Exchange) string {
	var b strings.Builder
	for _, e := range ex {
		fmt.Fprintf(&b, "\n  #%d %s %s -> %d: %s", e.Seq, e.API, e.Path, e.Status, e.Rejected)
	}
	return b.String()
}

func runAgent(t *testing.T, a agent, bin string) {
	command, version := installedAgent(t, a.name, a.command)
	sb := newSandbox(t)
	turns := map[string]modelserver.Turn{}
	for _, st := range sessionTurns {
		turns[st.task] = st.turn(sb.project)
	}
	labels := []string{"auto", "turn-window", "token-budget", "extractive", "budget", "in-place", "restore-v1", "restore-compacted"}
	for _, l := range labels {
		turns["resume-"+l] = resumeTurn(l)
		turns[originalTask(l)] = modelserver.Turn{Answer: "The original is still here after the " + l + " fork. (answer " + originalTask(l) + ")"}
	}
	srv, err := modelserver.Start(modelserver.Options{Script: &modelserver.Script{Turns: turns}, LogDir: filepath.Join(sb.root, "requests")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a.configure(t, sb, srv)
	t.Logf("%s %s in %s (requests logged under %s)", a.label, version, sb.root, filepath.Join(sb.root, "requests"))

	// Live: the language server watches while the agent works.
	lsp := startLSP(t, sb, bin, a.lspInit)
	usage := watchUsage(t, a.root(sb), a.usageOf)

	id := a.newID()
	file := ""
	var turnTimes, latencies, raw []time.Duration
	var finalUsage int
	for i, st := range sessionTurns {
		args := a.first(sb, id, prompt(st.task, st.prompt))
		if i > 0 {
			args = a.resume(sb, id, prompt(st.task, st.prompt))
		}
		if i == 1 && a.backdate != nil {
			file = a.backdate(t, file)
		}
		seq := lastSeq(srv)
		var notesBefore int
		if file != "" {
			notesBefore = len(lsp.gaugesOf(file))
		}
		began := time.Now()
		sb.run(t, a.timeout, command, args...)
		turnTimes = append(turnTimes, time.Since(began))
		if bad := rejectedSince(srv, seq); len(bad) > 0 {
			t.Fatalf("turn %s: the model server refused the agent's own requests:%s", st.task, describe(bad))
		}
		if file == "" {
			file = a.session(t, sb, id)
			if id == "" {
				id = a.idOf(t, file)
			}
		}
		ex := exchangesOf(srv, st.task)
		if len(ex) == 0 || ex[len(ex)-1].Step != len(turns[st.task].Steps) {
			t.Fatalf("turn %s: the agent did not run the scripted steps to the answer (%d requests)", st.task, len(ex))
		}
		want := ex[len(ex)-1].Usage.Context()
		finalUsage = want

		// The usage reaches the file; the server's gauge follows. Before it
		// arrives the gauge already estimates the turn (the last usage plus
		// what came after it) and may sit within 1 % of the new figure: the
		// latency is measured to the notification calibrated on the new
		// usage itself, which shows it exactly (nothing model-visible
		// follows the last response of a turn).
		at, _, ok := usage.when(file, want, 10*time.Second)
		if !ok {
			t.Fatalf("turn %s: the usage the server reported (%d) never reached %s", st.task, want, file)
		}
		note, ok := lsp.waitGauge(file, notesBefore, 5*time.Second, func(g gaugeNote) bool { return g.Tokens == want })
		if !ok {
			note, ok = lsp.waitGauge(file, notesBefore, time.Second, func(g gaugeNote) bool { return !g.At.Before(at) && within(g.Tokens, want, 0.01) })
		}
		if !ok {
			gs := lsp.gaugesOf(file)
			t.Errorf("turn %s: no compactd/gauge for %s within 1%% of the reported %d%s (last notifications: %v)", st.task, file, want, a.known["live"], tokensOf(gs[max(0, len(gs)-8):]))
			continue
		}
		latency := note.At.Sub(at)
		raw = append(raw, latency)
		if latency < 0 {
			latency = 0 // the server was faster than the test's own watcher
		}
		latencies = append(latencies, latency)
		// The bar is the live gauge's on an append to a session the server
		// follows (250 ms). The first turn creates the session: the server
		// first has to see a new folder and file and read it whole, with
		// the other groups' agents starting beside it — held to 2 s.
		bar := 250 * time.Millisecond
		if i == 0 {
			bar = 2 * time.Second
		}
		if latency > bar {
			t.Errorf("turn %s: compactd/gauge (%d) arrived %s after the usage reached the file (bar: %s)", st.task, note.Tokens, latency, bar)
		}
		// Once the agent is done, the gauge stays on the reported figure.
		settled := lsp.wait(5*time.Second, func() bool {
			var last *gaugeNote
			for i := range lsp.gauges {
				if canonical(lsp.gauges[i].Path) == canonical(file) {
					last = &lsp.gauges[i]
				}
			}
			return last != nil && within(last.Tokens, want, 0.01)
		})
		if !settled {
			gs := lsp.gaugesOf(file)
			t.Errorf("turn %s: the gauge left the reported %d: last notifications %v", st.task, want, tokensOf(gs[max(0, len(gs)-3):]))
		}
	}
	p50, maxLat := quantiles(latencies)
	report("%s %s: %d turns, %s each (%s); live gauge after the usage reached the file: p50 %s, max %s over %d turns (raw, negative = before the test's own watcher saw it: %s)",
		a.label, version, len(turnTimes), medianOf(turnTimes).Round(10*time.Millisecond), fmtDurations(turnTimes), p50, maxLat, len(latencies), fmtDurations(raw))

	if a.backdate != nil {
		// The layout Gemini CLI lost the original in: the session's file
		// and the stubs of its resumes.
		named, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "session-*-"+id[:8]+".json*"))
		if len(named) < 2 {
			t.Fatalf("%s left %d files for session %s (%v): the suite must meet the two-files layout", a.label, len(named), id, named)
		}
		report("%s: %d files name the session before compactd forks it (its file and the stubs its resumes left)", a.label, len(named))
	}

	// The CLI gauges the transcript at the last reported usage.
	src := sb.gauge(t, bin, file)
	if !within(src.Tokens, finalUsage, 0.01) {
		t.Errorf("compactd gauge %s = %d tokens, the last reported usage is %d (bar: ±1%%)", file, src.Tokens, finalUsage)
	}
	report("%s: gauge %d vs reported %d (%+.2f%%)", a.label, src.Tokens, finalUsage, 100*float64(src.Tokens-finalUsage)/float64(finalUsage))
	last := lastTurnItems(t, srv, sessionTurns[len(sessionTurns)-1].task)

	// Every strategy's fork, and restored versions, resumed by the agent.
	type fork struct {
		label string
		path  string
		rep   *compactResult
		// like is the gauge this fork must show (±2 %), when it restores
		// a compacted version: the gauge of the fork that version was.
		like int
		// last is the last turn the fork holds, when not the session's.
		last *lastTurn
	}
	var forks []fork
	compactFork := func(label string, args ...string) {
		rep := sb.compact(t, bin, append(args, file)...)
		forks = append(forks, fork{label, rep.ForkPath, &rep, 0, nil})
	}
	compactFork("auto")
	auto := forks[0].rep
	autoGauge := sb.gauge(t, bin, auto.ForkPath).Tokens
	compactFork("turn-window", "--strategy", "turn-window")
	// token-budget keeps the newest turns that fit: half the session.
	writeConfig(t, sb, fmt.Sprintf("[compact]\nbudget = %d\n", auto.TokensBefore/2))
	compactFork("token-budget", "--strategy", "token-budget")
	os.Remove(filepath.Join(sb.project, ".compactd.toml"))
	compactFork("extractive", "--strategy", "extractive")
	// --budget: a third of the session, fitted (a verbatim suffix and the
	// offline summary of the rest); enough to keep the last turn whole,
	// which every fork here must.
	compactFork("budget", "--budget", fmt.Sprint(auto.TokensBefore/3))
	for _, f := range forks {
		if f.rep.TokensAfter >= f.rep.TokensBefore {
			t.Errorf("the %s compaction saved nothing (%d → %d tokens; notes: %v): the fork resumed below would not test it", f.label, f.rep.TokensBefore, f.rep.TokensAfter, f.rep.Notes)
		}
	}
	// Each fork is resumed, then the original: it must still resume with
	// its whole history (Gemini CLI deletes a resumed session at the next
	// start of any other session unless compactd keeps it, issue 23).
	var originalTurns []string // the original's own resumes, in order
	checkForks := func(forks []fork, whole bool) {
		for _, f := range forks {
			t.Run(f.label, func(t *testing.T) {
				l := last
				if f.last != nil {
					l = *f.last
				}
				checkFork(t, a, sb, srv, lsp, bin, command, id, src, l, f.label, f.path, f.rep, f.like)
				checkOriginal(t, a, sb, srv, lsp, command, id, f.label, whole, originalTurns)
				originalTurns = append(originalTurns, originalTask(f.label))
			})
		}
	}
	checkForks(forks, true)

	// In place, then restores: the original is the compacted file from
	// here on, and resumes with what it holds.
	before, _ := os.ReadFile(file)
	inPlace := sb.compact(t, bin, "--in-place", file)
	r1 := sb.restore(t, bin, file, "v1")
	rc := sb.restore(t, bin, file, auto.Version)
	if r1b, _ := os.ReadFile(r1.Path); len(before) > 0 && string(r1b) == string(before) {
		t.Errorf("restore v1 wrote a byte-identical copy under the same session id; a fork needs its own")
	}
	if len(originalTurns) == 0 {
		t.Fatal("the original never resumed after a fork")
	}
	// Compacted in place, the original ends with its own last resume; the
	// restored versions end where the session did.
	resumed := lastTurnItems(t, srv, originalTurns[len(originalTurns)-1])
	originalTurns = nil
	checkForks([]fork{{"in-place", file, &inPlace, 0, &resumed}, {"restore-v1", r1.Path, nil, 0, nil}, {"restore-compacted", rc.Path, nil, autoGauge, nil}}, false)
}

// originalTask names the turn that resumes the original after a fork.
func originalTask(label string) string { return "original-after-" + label }

// checkOriginal resumes the original session id after the label fork was
// resumed: the agent must still find it, and resume it with every turn
// it had — the scripted session's (whole), and the earlier resumes of the
// original (after names them). An original compacted in place (its whole
// history no longer in the file) resumes with what the file holds.
func checkOriginal(t *testing.T, a agent, sb *sandbox, srv *modelserver.Server, lsp *lspClient, command, id, label string, whole bool, after []string) {
	t.Helper()
	path := a.session(t, sb, id)
	held := keptTasks(t, path)
	task := originalTask(label)
	seq := lastSeq(srv)
	stdout, stderr, err := sb.try(a.timeout, command, a.resume(sb, id, prompt(task, "Are you still there?"))...)
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("%s resumed the original after the %s fork with requests the API would refuse:%s", a.label, label, describe(bad))
	}
	if err != nil {
		t.Fatalf("%s could not resume the original session %s after the %s fork was resumed: %v\n--- stdout\n%s\n--- stderr\n%s", a.label, id, label, err, tail(stdout, 2000), tail(stderr, 3000))
	}
	ex := exchangesOf(srv, task)
	if len(ex) == 0 {
		t.Fatalf("%s resumed the original after the %s fork but never asked the model", a.label, label)
	}
	req := ex[0].Conversation
	for _, st := range sessionTurns {
		for what, needle := range map[string]string{"prompt": modelserver.TaskTag(st.task), "answer": "(answer " + st.task + ")"} {
			if (whole || held[what+" "+st.task]) && !req.Contains(needle) {
				t.Errorf("after the %s fork was resumed, the original resumes without the %s of %s: its history is not whole", label, what, st.task)
			}
		}
	}
	for _, earlier := range after {
		if !req.Contains(modelserver.TaskTag(earlier)) || !req.Contains("(answer "+earlier+")") {
			t.Errorf("after the %s fork was resumed, the original resumes without its own earlier turn %s", label, earlier)
		}
	}
	report("%s %s: the original resumed after the fork, %d requests, the first one's prompt %d tokens", a.label, label, len(ex), ex[0].Usage.Prompt)
	if a.stubs != nil {
		// Gemini CLI left a stub resuming the original; compactd serve
		// removes it as soon as it settles, before anything else starts.
		if !lsp.wait(15*time.Second, func() bool { return len(a.stubs(t, sb, id)) == 0 }) {
			t.Fatalf("compactd serve left %v beside the original: %s's next start of another session deletes it", a.stubs(t, sb, id), a.label)
		}
	}
}

func medianOf(ds []time.Duration) time.Duration {
	p50, _ := quantiles(ds)
	return p50
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// tokensOf lists notifications briefly: tokens, and the source unless it
// is the usual reported+estimate.
func tokensOf(gs []gaugeNote) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = fmt.Sprint(g.Tokens)
		if g.Removed {
			out[i] += "(removed)"
		} else if g.Source != "reported+estimate" {
			out[i] += "(" + g.Format + " " + g.Source + ")"
		}
	}
	return out
}

func fmtDurations(ds []time.Duration) string {
	var parts []string
	for _, d := range ds {
		r := 10 * time.Millisecond
		if d < time.Second && d > -time.Second {
			r = 100 * time.Microsecond
		}
		parts = append(parts, d.Round(r).String())
	}
	return strings.Join(parts, " ")
}

func writeConfig(t *testing.T, sb *sandbox, toml string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(sb.project, ".compactd.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lastTurnItems returns the last turn as the agent itself sent it: the
// items of its final request from its prompt on, plus the answer.
func lastTurnItems(t *testing.T, srv *modelserver.Server, last string) lastTurn {
	t.Helper()
	ex := exchangesOf(srv, last)
	final := ex[len(ex)-1]
	items := turnFrom(final.Conversation, last)
	if items == nil {
		t.Fatalf("the final request of %s lacks its prompt", last)
	}
	return lastTurn{last, append(items, modelserver.Item{Role: "assistant", Kind: modelserver.KindText, Text: final.Reply.Text})}
}

// lastTurn is the last turn of a session as the agent sent it: its task
// and its items.
type lastTurn struct {
	task  string
	items []modelserver.Item
}

// turnFrom returns the items from the user prompt tagged task on, without
// reasoning (which agents may drop from history on their own) and without
// the agent's own reminders injected as user text after the prompt.
func turnFrom(c *modelserver.Conversation, task string) []modelserver.Item {
	start := -1
	for i, it := range c.Items {
		if it.Role == "user" && it.Kind == modelserver.KindText && strings.Contains(it.Text, modelserver.TaskTag(task)) {
			start = i
		}
	}
	if start < 0 {
		return nil
	}
	var out []modelserver.Item
	for _, it := range c.Items[start:] {
		if it.Kind == modelserver.KindReasoning {
			continue
		}
		if len(out) > 0 && it.Role == "user" && it.Kind == modelserver.KindText && strings.HasPrefix(it.Text, "<system-reminder>") {
			continue
		}
		// Gemini CLI sends each tool result twice when it resumes a
		// session (its own sessions too): one copy is the turn's.
		if len(out) > 0 && it.Kind == modelserver.KindResult && reflect.DeepEqual(out[len(out)-1], it) {
			continue
		}
		out = append(out, it)
	}
	return out
}

// keptTasks returns which tasks' prompts and answers a transcript holds in
// what the model sees, read with compactd's own codec.
func keptTasks(t *testing.T, path string) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	codec, err := format.Detect(path, src)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr, err := codec.Parse(src)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	var text strings.Builder
	for _, m := range tr.Messages {
		for _, p := range m.Parts {
			if p.Kind == transcript.PartText || p.Kind == transcript.PartToolResult {
				text.WriteString(p.Text)
				text.WriteByte('\n')
			}
		}
	}
	kept := map[string]bool{}
	for _, st := range sessionTurns {
		if strings.Contains(text.String(), modelserver.TaskTag(st.task)) {
			kept["prompt "+st.task] = true
		}
		if strings.Contains(text.String(), "(answer "+st.task+")") {
			kept["answer "+st.task] = true
		}
	}
	return kept
}

func checkFork(t *testing.T, a agent, sb *sandbox, srv *modelserver.Server, lsp *lspClient, bin, command, sourceID string, src gaugeResult, last lastTurn, label, path string, rep *compactResult, like int) {
	if path == "" {
		t.Fatalf("%s wrote no fork", label)
	}
	forkID := a.idOf(t, path)
	if label != "in-place" && forkID == sourceID {
		t.Errorf("the %s fork keeps the source's session id %s", label, forkID)
	}
	kept := keptTasks(t, path)
	g := sb.gauge(t, bin, path)
	if rep != nil {
		// A fork's gauge is its own count plus the overhead measured on
		// the source outside the transcript (system prompt, tools).
		overhead := src.Tokens - rep.TokensBefore
		if rep.Overhead != nil {
			overhead = *rep.Overhead
		}
		want := rep.TokensAfter + overhead
		report("%s %s: %d → %d tokens (report); fork gauge %d, after+overhead %d (%+.1f%%)", a.label, label, rep.TokensBefore, rep.TokensAfter, g.Tokens, want, 100*float64(g.Tokens-want)/float64(want))
		if !within(g.Tokens, want, 0.02) {
			t.Errorf("defect 5: the %s fork gauges %d tokens; its report's after (%d) plus the source's overhead (%d) is %d (bar: ±2%%)", label, g.Tokens, rep.TokensAfter, overhead, want)
		}
	}

	if like > 0 {
		report("%s %s: fork gauge %d, the compacted fork it restores gauged %d (%+.1f%%)", a.label, label, g.Tokens, like, 100*float64(g.Tokens-like)/float64(like))
		if !within(g.Tokens, like, 0.02) {
			t.Errorf("defect 5, restored: the %s fork gauges %d tokens, the compacted fork it restores gauged %d (its own count plus the source's overhead) (bar: ±2%%)", label, g.Tokens, like)
		}
	}

	// The agent resumes the fork.
	task := "resume-" + label
	seq := lastSeq(srv)
	began := time.Now()
	stdout, stderr, err := sb.try(a.timeout, command, a.resume(sb, forkID, prompt(task, "Carry on from here."))...)
	took := time.Since(began)
	if bad := rejectedSince(srv, seq); len(bad) > 0 {
		t.Fatalf("%s resumed the %s fork with requests the API would refuse%s:%s", a.label, label, a.known["rejected"], describe(bad))
	}
	if err != nil {
		t.Fatalf("%s could not resume the %s fork (%s): %v\n--- stdout\n%s\n--- stderr\n%s", a.label, label, path, err, tail(stdout, 2000), tail(stderr, 3000))
	}
	ex := exchangesOf(srv, task)
	if len(ex) == 0 {
		t.Fatalf("%s resumed the %s fork but never asked the model", a.label, label)
	}
	if last := ex[len(ex)-1]; last.Step != 1 {
		t.Errorf("the resumed %s session stopped at step %d of its tool loop", label, last.Step)
	}
	req := ex[0].Conversation
	// The fork's gauge foretells the window the resumed agent fills: the
	// prompt of its first request, which holds the fork, what the agent
	// sends beside it and the new prompt.
	prompt := ex[0].Usage.Prompt
	report("%s %s: resumed in %s; the resumed request's prompt %d tokens, fork gauge %d (%+.1f%%)", a.label, label, took.Round(10*time.Millisecond), prompt, g.Tokens, 100*float64(g.Tokens-prompt)/float64(prompt))
	if !within(g.Tokens, prompt, resumeTolerance) {
		t.Errorf("the %s fork gauges %d tokens; the resumed %s's first request holds %d (bar: ±%.0f%%)", label, g.Tokens, a.label, prompt, 100*resumeTolerance)
	}

	// The agent's environment.
	if err := a.environment(req, sb); err != nil {
		t.Errorf("the request resuming the %s fork lacks the agent's environment: %v%s", label, err, a.known["environment"])
	}
	// The kept history, no more and no less.
	for _, st := range sessionTurns {
		for _, what := range []string{"prompt", "answer"} {
			needle := modelserver.TaskTag(st.task)
			if what == "answer" {
				needle = "(answer " + st.task + ")"
			}
			inFork, inReq := kept[what+" "+st.task], req.Contains(needle)
			if inFork && !inReq {
				t.Errorf("the %s fork keeps the %s of %s, the resumed request lacks it", label, what, st.task)
			}
			if !inFork && inReq {
				t.Errorf("the resumed request carries the %s of %s, which the %s fork dropped (the agent read another branch)", what, st.task, label)
			}
		}
	}
	// The last turn verbatim.
	got := turnFrom(req, last.task)
	if len(got) > len(last.items) {
		got = got[:len(last.items)]
	}
	if diff := itemsDiff(last.items, got); diff != "" {
		t.Errorf("the request resuming the %s fork does not carry the last turn verbatim: %s", label, diff)
	}
	// The agent appended its new turn to the fork: compactd reads the
	// resumed fork whole (its new lines attach to what the fork kept) and
	// gauges it at the usage just reported, on the command line and live.
	resumed := a.session(t, sb, forkID)
	final := ex[len(ex)-1].Usage.Context()
	if after := sb.gauge(t, bin, resumed); !within(after.Tokens, final, 0.01) {
		t.Errorf("after the agent resumed the %s fork, compactd gauge %s = %d tokens (%d turns), its last reported usage is %d (bar: ±1%%)", label, resumed, after.Tokens, after.Turns, final)
	}
	if _, ok := lsp.waitGauge(resumed, 0, 5*time.Second, func(g gaugeNote) bool { return within(g.Tokens, final, 0.01) }); !ok {
		gs := lsp.gaugesOf(resumed)
		t.Errorf("the live gauge of the resumed %s fork never showed its reported usage %d%s (last notifications: %v)", label, final, a.known["live"], tokensOf(gs[max(0, len(gs)-3):]))
	}
	// The restored source carries the whole session.
	if label == "restore-v1" {
		for _, st := range sessionTurns {
			if !req.Contains(modelserver.TaskTag(st.task)) || !req.Contains("(answer "+st.task+")") {
				t.Errorf("the restored v1 lacks turn %s", st.task)
			}
		}
	}
}

// itemsDiff compares turns item by item (ids aside: forks may renew them).
func itemsDiff(want, got []modelserver.Item) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d items, want %d:\n got  %s\n want %s", len(got), len(want), itemsBrief(got), itemsBrief(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Role != g.Role || w.Kind != g.Kind || w.Name != g.Name || normalizeArgs(w) != normalizeArgs(g) {
			b1, _ := json.Marshal(w)
			b2, _ := json.Marshal(g)
			return fmt.Sprintf("item %d differs:\n got  %s\n want %s", i, b2, b1)
		}
	}
	return ""
}

// normalizeArgs compares call arguments as JSON values, text as is.
func normalizeArgs(it modelserver.Item) string {
	if it.Kind != modelserver.KindCall {
		return it.Text
	}
	var v any
	if json.Unmarshal([]byte(it.Text), &v) == nil {
		b, _ := json.Marshal(v)
		return string(b)
	}
	return it.Text
}

func itemsBrief(items []modelserver.Item) string {
	var parts []string
	for _, it := range items {
		parts = append(parts, fmt.Sprintf("%s/%s %.40q", it.Role, it.Kind, it.Text))
	}
	return strings.Join(parts, " | ")
}
