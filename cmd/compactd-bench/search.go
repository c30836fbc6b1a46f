package main

// The search section measures `compactd search` on a machine with 1 GiB
// of sessions (256 MiB with -quick), through the built binary as a user
// types it (a process per query, the index brought up to date first):
// the real sessions of the forward corpus (every split and agent:
// $COMPACTD_FORWARD_SESSIONS, else forward-sessions/ beside the
// repository or in /work) and the shared corpus, copied until the total
// is reached. Each copy is a distinct session: every UUID and opencode id
// in it is rewritten for the copy (the file's name and folder follow the
// new session id), so the index holds a gigabyte of sessions whose text
// repeats the way a person's sessions repeat their project's words, not
// one session many times over the same bytes. Sessions go where their
// agents keep them under a temporary home (Claude Code's projects, Codex's
// dated rollouts, Copilot CLI's session-state, Qwen Code's chats, Gemini
// CLI's tmp); opencode's exports, Aider's histories and the corpus's
// other formats go in the workspace the CLI indexes beside them
// (opencode keeps its sessions in a database, which the tests cover).
//
// The formats no real session of the corpora is in (Cursor's agent
// transcripts, VS Code's chat sessions, Cline's histories) come from their
// codecs' testdata, placed where their agents keep them; every other
// opencode export is placed as Kilo Code's (the same export, Kilo's
// folder). Before the first search, a few Claude Code sessions are
// compacted through the CLI and then deleted with their forks: what they
// said is then only in the versions the store kept.
//
// Queries of six kinds, picked from the sessions' own text with a fixed
// seed: a rare phrase (four words of a prompt that one source session
// says), a phrase of each format (four words of a prompt, an answer, a
// tool call or a tool result that one source session of that format
// says: found when a hit is of that format), a phrase of a stored version
// (found when a hit is a stored version), a common word, a path a tool
// call named, an identifier of the code the sessions read. Each runs
// three times; the bar (the issue's: a phrase found in under 100 ms) is
// the median and the 95th percentile of the phrases' runs, every run of
// every kind shown beside it. The index's size is the pages of its tables against the
// text it holds. An append's cost is what the search that indexes it
// says it read (--json), against the bytes appended; the bytes the whole
// process read beyond the same search with nothing new (/proc/self/io,
// which counts a reaped child's reads; the store's pages included) are
// shown beside it.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/store"
)

func init() {
	register(section{
		Name:    "search",
		Summary: "compactd search over 1 GiB of real sessions of every agent and format: phrase latency (rare, of each format, of stored versions) and by kind, index size against its text, first indexing, an append's cost",
		Run:     benchSearch,
	})
}

// searchSource is one real session the machine is built from.
type searchSource struct {
	path string
	// kind is where its copies go: an agent's layout, or the workspace.
	kind string
	data []byte
	// fixture: a codec's testdata, for a format no corpus session is in.
	fixture bool
}

// fixtureSources are the codecs' testdata for the formats neither
// corpus has a session of, each with where its agent keeps it.
var fixtureSources = []struct{ rel, kind string }{
	{"compaction/format/cursor/testdata/transcript.jsonl", "cursor"},
	{"compaction/format/copilotchat/testdata/legacy-session.json", "copilotchat"},
	{"compaction/format/copilotchat/testdata/session.jsonl", "copilotchat"},
	{"compaction/format/cline/testdata/api_conversation_history.json", "cline"},
	{"compaction/format/cline/testdata/ui-only/ui_messages.json", "cline"},
}

func benchSearch(ctx context.Context, cfg *config) ([]row, error) {
	bin, err := serverBinary(ctx, cfg)
	if err != nil {
		return nil, err
	}
	target, targetName := int64(1<<30), "1 GiB"
	if cfg.Quick {
		target, targetName = 256<<20, "256 MiB"
	}
	// $COMPACTD_BENCH_SEARCH_MIB sets another size, to try the section
	// out (its figures are not the bar's).
	if v := os.Getenv("COMPACTD_BENCH_SEARCH_MIB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("COMPACTD_BENCH_SEARCH_MIB=%s: want a number of MiB", v)
		}
		target, targetName = int64(n)<<20, fmt.Sprintf("%d MiB", n)
	}
	sources, err := searchSources()
	if err != nil {
		return nil, err
	}
	if len(sources) == 0 {
		return nil, fmt.Errorf("no real sessions: the forward corpus (forward-sessions/) and the shared corpus are both missing")
	}
	// $COMPACTD_BENCH_SEARCH_DIR keeps the machine (and its index) there
	// to investigate a figure; the sessions are written again each run.
	root := os.Getenv("COMPACTD_BENCH_SEARCH_DIR")
	if root == "" {
		root = filepath.Join(cfg.TempDir, "search")
		defer os.RemoveAll(root)
	} else {
		os.RemoveAll(root)
	}
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	storePath := filepath.Join(root, "state", "compactd.db")
	built, err := buildMachine(home, ws, sources, target)
	if err != nil {
		return nil, err
	}
	fixtures := 0
	for _, s := range sources {
		if s.fixture {
			fixtures++
		}
	}
	cfg.logf("search: %d session files, %.0f MiB (%s) from %d real sessions and %d codec fixtures", built.files, float64(built.bytes)/(1<<20), built.byKind(), len(sources)-fixtures, fixtures)
	env := searchEnv(home, storePath)
	versioned, err := compactAndDelete(ctx, cfg, bin, env, sources[:built.sources], &built)
	if err != nil {
		return nil, err
	}
	var cpu []time.Duration // of the timed queries
	run := func(args ...string) ([]byte, time.Duration, error) {
		cmd := exec.CommandContext(ctx, bin, append([]string{"search", "--folder", ws}, args...)...)
		cmd.Env = env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		if err != nil {
			return nil, took, fmt.Errorf("compactd search %v: %v: %s", args, err, errb.String())
		}
		cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		return out.Bytes(), took, nil
	}

	// runRead runs a search and says what the process read (on Linux;
	// -1 elsewhere).
	runRead := func(args ...string) ([]byte, time.Duration, int64, error) {
		before := readBytes()
		out, took, err := run(args...)
		after := readBytes()
		if before < 0 || after < 0 {
			return out, took, -1, err
		}
		return out, took, after - before, err
	}

	// The first search indexes everything.
	_, initial, err := run("--limit", "1", "warmup")
	if err != nil {
		return nil, err
	}
	cfg.logf("search: first indexing %v", initial.Round(time.Millisecond))
	st, err := store.Open(ctx, storePath)
	if err != nil {
		return nil, err
	}
	size, err := st.SearchSize(ctx)
	st.Close()
	if err != nil {
		return nil, err
	}
	ratio := float64(size.IndexBytes) / float64(max(size.TextBytes, 1))

	// Phrases of the sessions on the machine: with -quick the first copy
	// stops before the last sources.
	queries := pickQueries(sources[:built.sources], versioned)
	cpu = nil
	type kindFigures struct {
		times  []time.Duration
		found  int
		runs   int
		missed []string
	}
	kinds := map[string]*kindFigures{}
	// all are every timed run; phrases those of quoted phrases (rare,
	// of each format, of stored versions): the bar.
	var all, phrases, phraseCPU []time.Duration
	const reps = 3
	for _, q := range queries {
		k := kinds[q.kind]
		if k == nil {
			k = &kindFigures{}
			kinds[q.kind] = k
		}
		if q.text == "" {
			// No phrase of its own in any source: not found.
			k.runs++
			k.missed = append(k.missed, q.format+": no phrase")
			continue
		}
		hits := 0
		for range reps {
			out, took, err := run("--json", "--limit", "20", q.text)
			if err != nil {
				return nil, err
			}
			var res searchJSON
			if err := json.Unmarshal(out, &res); err != nil {
				return nil, err
			}
			hits = len(res.Hits)
			if !q.found(res) {
				hits = 0
			}
			k.times = append(k.times, took)
			all = append(all, took)
			if q.phrase() {
				phrases = append(phrases, took)
				phraseCPU = append(phraseCPU, cpu[len(cpu)-1])
			}
		}
		k.runs++
		if hits > 0 {
			k.found++
		} else if q.kind == "format" {
			k.missed = append(k.missed, q.format+" missed")
		}
		cfg.logf("search: %-18s %-50q %2d hits, median %v", q.label(), q.text, hits, median(slices.Clone(k.times[len(k.times)-reps:])).Round(100*time.Microsecond))
	}
	queryCPU := slices.Clone(cpu)
	// The same queries with the index taken as it is (what the server's
	// "Find a session…" costs, the server keeping the index current).
	var noSync []time.Duration
	for _, q := range queries {
		if q.text == "" {
			continue
		}
		_, took, err := run("--no-sync", "--json", "--limit", "20", q.text)
		if err != nil {
			return nil, err
		}
		noSync = append(noSync, took)
	}

	// An append to the largest session: the next search indexes it. The
	// same search with nothing new first, to tell what the append cost
	// the process beyond it.
	_, _, baseRead, err := runRead("--json", "--limit", "5", `"`+appendMarker+`"`)
	if err != nil {
		return nil, err
	}
	largest := built.largest
	turn := appendTurn(largest)
	f, err := os.OpenFile(largest, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(turn); err != nil {
		f.Close()
		return nil, err
	}
	f.Close()
	out, afterAppend, appendRead, err := runRead("--json", "--limit", "5", `"`+appendMarker+`"`)
	if err != nil {
		return nil, err
	}
	var appended searchJSON
	if err := json.Unmarshal(out, &appended); err != nil {
		return nil, err
	}
	appendFound := slices.ContainsFunc(appended.Hits, func(h searchHit) bool { return filepath.Base(h.Path) == filepath.Base(largest) })
	var appendSync int64 = -1
	if appended.Indexed != nil {
		appendSync = appended.Indexed.Read
	}
	// A growing session is read in pieces of about 32 KiB; a last piece
	// under a quarter of that is read again with what follows it.
	const shortPiece = 8 << 10
	appendCheap := appendSync >= int64(len(turn)) && appendSync <= int64(len(turn))+shortPiece

	med, p95 := median(slices.Clone(phrases)), percentile(slices.Clone(phrases), 0.95)
	rows := []row{
		{Name: fmt.Sprintf("compactd search for a phrase over %s of sessions (%d files of every agent): median of %d runs (rare phrases, a phrase of each format, of stored versions; × %d), index brought up to date first", targetName, built.files, len(phrases), reps),
			Value: ms(med), Anchor: "< 100 ms", Pass: med < 100*time.Millisecond && len(phrases) > 0},
		{Name: "compactd search for a phrase, 95th percentile of the same runs", Value: ms(p95), Anchor: "< 100 ms", Pass: p95 < 100*time.Millisecond && len(phrases) > 0},
		{Name: "compactd search for a phrase, CPU time (user + system) of the same runs: median / 95th percentile (what the machine's load does not stretch)",
			Value: ms(median(slices.Clone(phraseCPU))) + " / " + ms(percentile(slices.Clone(phraseCPU), 0.95))},
		{Name: fmt.Sprintf("compactd search, every run (%d queries of %d kinds × %d, common words included): median / 95th percentile", len(queries), len(kinds), reps),
			Value: ms(median(slices.Clone(all))) + " / " + ms(percentile(slices.Clone(all), 0.95))},
		{Name: fmt.Sprintf("search index against the text it holds (%.0f MiB of index pages, %.0f MiB of text, %d pieces)", float64(size.IndexBytes)/(1<<20), float64(size.TextBytes)/(1<<20), size.Chunks),
			Value: fmt.Sprintf("%.1f %%", 100*ratio), Anchor: "≤ 25 %", Pass: ratio <= 0.25},
	}
	for _, name := range []string{"rare phrase", "format", "stored version", "common word", "path", "identifier"} {
		k := kinds[name]
		if k == nil {
			continue
		}
		r := row{Name: fmt.Sprintf("%s queries: median / 95th percentile (%d queries × %d)", name, k.runs, reps),
			Value: ms(median(slices.Clone(k.times))) + " / " + ms(percentile(slices.Clone(k.times), 0.95))}
		rows = append(rows, r)
		switch name {
		case "common word":
		case "format":
			what := "formats whose phrase finds a session of that format"
			if len(k.missed) > 0 {
				what += " (" + strings.Join(k.missed, ", ") + ")"
			}
			rows = append(rows, row{Name: what, Value: fmt.Sprintf("%d of %d", k.found, k.runs),
				Anchor: "all 16", Pass: k.found == k.runs && k.runs == len(allFormats)})
		case "stored version":
			rows = append(rows, row{Name: "phrases of compacted, then deleted sessions found in the store's versions", Value: fmt.Sprintf("%d of %d", k.found, k.runs),
				Anchor: "all", Pass: k.found == k.runs && k.runs > 0})
		default:
			rows = append(rows, row{Name: fmt.Sprintf("%s queries that find their session", name), Value: fmt.Sprintf("%d of %d", k.found, k.runs),
				Anchor: "all", Pass: k.found == k.runs})
		}
	}
	rows = append(rows,
		row{Name: "the phrase of a turn appended to the largest session is found by the next search", Value: fmt.Sprint(appendFound), Anchor: "true", Pass: appendFound},
		row{Name: fmt.Sprintf("first indexing of the %s (%d sessions): the first compactd search", targetName, built.files), Value: seconds(initial)},
		row{Name: fmt.Sprintf("compactd search after a %d KB turn was appended to a %d MB session (indexes the append, then answers)", len(turn)>>10, built.largestSize>>20), Value: ms(afterAppend)},
		row{Name: fmt.Sprintf("bytes of the session that search read to index the %d-byte append (its --json; the append, plus at most an 8 KiB short last piece)", len(turn)),
			Value: fmt.Sprint(appendSync), Anchor: fmt.Sprintf("%d..%d", len(turn), len(turn)+shortPiece), Pass: appendCheap},
		row{Name: "bytes that search's process read beyond the same search with nothing new (every file: the session, the store's pages; Linux /proc/self/io)", Value: ioDelta(baseRead, appendRead)},
		row{Name: "compactd search --no-sync (the index as the server keeps it): median / 95th percentile", Value: ms(median(slices.Clone(noSync))) + " / " + ms(percentile(slices.Clone(noSync), 0.95))},
		row{Name: "compactd search CPU time (user + system) of the timed queries: median / 95th percentile", Value: ms(median(slices.Clone(queryCPU))) + " / " + ms(percentile(slices.Clone(queryCPU), 0.95))},
		row{Name: "1-minute load average when the queries ran (the machine's other work delays a query's wall time, not its CPU time)", Value: loadAverage()},
	)
	return rows, nil
}

func searchEnv(home, storePath string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "USERPROFILE", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "COMPACTD_STORE", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"), "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "COMPACTD_STORE="+storePath)
}

// searchSources reads the real sessions: every file of the forward
// corpus (both halves: nothing here is tuned) and the shared corpus's
// files a codec reads.
func searchSources() ([]searchSource, error) {
	var out []searchSource
	dirs := []string{forwardSessionsDir(), "/work/forward-sessions"}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			parts := strings.Split(filepath.ToSlash(rel), "/")
			if len(parts) != 3 {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out = append(out, searchSource{path: p, kind: parts[1], data: data})
			return nil
		})
		if err != nil {
			return nil, err
		}
		break
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	forward := out
	out = nil
	if dir := corpusDir(); dir != "" {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".aider.chat.history.md") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			codec, err := format.Detect(p, data)
			if err != nil {
				return nil
			}
			kind := "workspace"
			switch codec.Format() {
			case transcript.FormatClaudeCode:
				kind = "claude"
			case transcript.FormatCodex:
				kind = "codex"
			case transcript.FormatGeminiCLI:
				kind = "gemini"
			}
			out = append(out, searchSource{path: p, kind: kind, data: data})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	out = append(out, forward...)
	if len(out) == 0 {
		return nil, nil
	}
	// The fixtures and the shared corpus (a few MB) first: with -quick
	// the copies stop before the last sources.
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	var fixtures []searchSource
	for _, f := range fixtureSources {
		p := filepath.Join(root, filepath.FromSlash(f.rel))
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		fixtures = append(fixtures, searchSource{path: p, kind: f.kind, data: data, fixture: true})
	}
	return append(fixtures, out...), nil
}

// searchMachine is what buildMachine wrote.
type searchMachine struct {
	// sources are how many of the sources have a copy on the machine.
	sources     int
	files       int
	bytes       int64
	perKind     map[string]int
	largest     string
	largestSize int64
	// firstCopy is where each source's first copy is.
	firstCopy map[int]string
}

func (m searchMachine) byKind() string {
	var parts []string
	keys := mapsKeys(m.perKind)
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m.perKind[k]))
	}
	return strings.Join(parts, ", ")
}

func mapsKeys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

var (
	uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	ocIDPattern = regexp.MustCompile(`\b(ses|msg|prt)_[0-9A-Za-z]{8,}`)
)

// buildMachine copies sources under home and ws, copy after copy, until
// target bytes are written.
func buildMachine(home, ws string, sources []searchSource, target int64) (searchMachine, error) {
	m := searchMachine{perKind: map[string]int{}, firstCopy: map[int]string{}}
	for copyN := 0; m.bytes < target; copyN++ {
		for i, s := range sources {
			if m.bytes >= target {
				break
			}
			data := s.data
			if copyN > 0 {
				data = vary(data, copyN)
			}
			id := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(copyN*7919+i), copyN&0xffff, i&0xfff, copyN&0xfff, uint64(i)<<20|uint64(copyN))
			project := fmt.Sprintf("/home/ada/src/project%02d", (i+copyN)%40)
			day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, (i*3+copyN*17)%300)
			var p string
			switch s.kind {
			case "claude":
				p = filepath.Join(home, ".claude", "projects", agents.Slug(project), id+".jsonl")
			case "codex":
				p = filepath.Join(home, ".codex", "sessions", day.Format("2006"), day.Format("01"), day.Format("02"), "rollout-"+day.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
			case "copilot":
				p = filepath.Join(home, ".copilot", "session-state", id, "events.jsonl")
			case "qwen":
				p = filepath.Join(home, ".qwen", "projects", agents.Slug(project), "chats", id+".jsonl")
			case "gemini":
				p = filepath.Join(home, ".gemini", "tmp", fmt.Sprintf("project%02d", (i+copyN)%40), "chats", "session-"+day.Format("2006-01-02T15-04")+"-"+id[:8]+filepath.Ext(s.path))
			case "aider":
				p = filepath.Join(ws, fmt.Sprintf("project%02d-%d-%d", (i+copyN)%40, copyN, i), ".aider.chat.history.md")
			case "opencode":
				// Kilo Code is opencode's fork: the same export, in
				// Kilo's folder, every other copy.
				p = filepath.Join(ws, "opencode", id+".json")
				if copyN%2 == 1 {
					p = filepath.Join(ws, "kilo", id+".json")
				}
			case "cursor":
				p = filepath.Join(home, ".cursor", "projects", strings.Trim(agents.Slug(project), "-"), "agent-transcripts", id, id+".jsonl")
			case "copilotchat":
				p = filepath.Join(home, ".config", "Code", "User", "workspaceStorage", fmt.Sprintf("%010x", (i+copyN)%40), "chatSessions", id+filepath.Ext(s.path))
			case "cline":
				p = filepath.Join(ws, "tasks", id, filepath.Base(s.path))
			default:
				p = filepath.Join(ws, "corpus", fmt.Sprintf("%d-%d-%s", copyN, i, filepath.Base(s.path)))
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return m, err
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return m, err
			}
			if copyN == 0 {
				m.firstCopy[i] = p
			}
			m.files++
			m.sources = max(m.sources, i+1)
			m.bytes += int64(len(data))
			m.perKind[s.kind]++
			if s.kind == "claude" && int64(len(data)) > m.largestSize {
				m.largest, m.largestSize = p, int64(len(data))
			}
		}
	}
	return m, nil
}

// vary rewrites a copy's ids: every UUID and opencode id, the same way
// throughout the copy (a message's parent keeps naming it).
func vary(data []byte, copyN int) []byte {
	salt := func(s []byte) string {
		h := sha256.Sum256(append([]byte(fmt.Sprint(copyN, ":")), s...))
		return hex.EncodeToString(h[:])
	}
	data = uuidPattern.ReplaceAllFunc(data, func(u []byte) []byte {
		h := salt(u)
		out := []byte(h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32])
		return out
	})
	return ocIDPattern.ReplaceAllFunc(data, func(id []byte) []byte {
		prefix, rest, _ := bytes.Cut(id, []byte("_"))
		h := salt(id)
		n := min(len(rest), len(h))
		return []byte(string(prefix) + "_" + h[:n])
	})
}

// A benchQuery is one query of a kind.
type benchQuery struct {
	kind, text string
	// format: a hit must be of this format; version: a hit must be a
	// stored version.
	format  string
	version bool
}

func (q benchQuery) label() string {
	if q.format != "" {
		return q.kind + " " + q.format
	}
	return q.kind
}

// phrase reports whether q is a quoted phrase of one session.
func (q benchQuery) phrase() bool {
	return q.kind == "rare phrase" || q.kind == "format" || q.kind == "stored version"
}

// found reports whether res holds what q looks for: a hit of its format,
// a stored version, else any hit.
func (q benchQuery) found(res searchJSON) bool {
	return slices.ContainsFunc(res.Hits, func(h searchHit) bool {
		return (q.format == "" || h.Format == q.format) && (!q.version || h.Version != "")
	})
}

// searchJSON is what compactd search --json prints, as far as the bench
// reads it.
type searchJSON struct {
	Hits    []searchHit `json:"hits"`
	Indexed *struct {
		Sessions int   `json:"sessions"`
		Read     int64 `json:"read_bytes"`
	} `json:"indexed"`
}

type searchHit struct {
	Format  string `json:"format"`
	Path    string `json:"path"`
	Version string `json:"version"`
}

// allFormats are the formats compactd reads: a phrase of each is looked
// for.
var allFormats = []transcript.Format{
	transcript.FormatClaudeCode, transcript.FormatCodex, transcript.FormatOpenAIChat, transcript.FormatOpenAIResponses,
	transcript.FormatAnthropicMessages, transcript.FormatJP, transcript.FormatGeminiCLI, transcript.FormatAider,
	transcript.FormatCline, transcript.FormatClineUI, transcript.FormatQwenCode, transcript.FormatOpenCode,
	transcript.FormatKilo, transcript.FormatCopilotCLI, transcript.FormatCursorAgent, transcript.FormatCopilotChat,
}

// firstCopyFormat is the format the index reads source i's first copy
// as: its own, but Kilo Code's for the opencode exports buildMachine puts
// in Kilo's folder.
func firstCopyFormat(s searchSource, i int, f transcript.Format) transcript.Format {
	if s.kind == "opencode" && i%2 == 1 {
		return transcript.FormatKilo
	}
	return f
}

// compactAndDelete compacts a few Claude Code sessions' first copies
// through the CLI (strip-tool-results: no model involved), then deletes
// them and their forks, as someone cleaning up after compacting would:
// what they said stays in the store's versions. It returns their source
// indexes.
func compactAndDelete(ctx context.Context, cfg *config, bin string, env []string, sources []searchSource, m *searchMachine) (map[int]bool, error) {
	const want = 5
	out := map[int]bool{}
	for i, s := range sources {
		if len(out) == want {
			break
		}
		p, ok := m.firstCopy[i]
		if s.kind != "claude" || !ok || p == m.largest || len(s.data) < 100<<10 || len(s.data) > 4<<20 {
			continue
		}
		cmd := exec.CommandContext(ctx, bin, "compact", "--json", "--strategy", "strip-tool-results", p)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("compactd compact %s: %v: %s", p, err, stderr.String())
		}
		var res struct {
			ForkPath string `json:"forkPath"`
			Version  string `json:"version"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res.ForkPath == "" {
			return nil, fmt.Errorf("compactd compact %s printed no fork: %v: %s", p, err, stdout.String())
		}
		for _, f := range []string{p, res.ForkPath} {
			if err := os.Remove(f); err != nil {
				return nil, err
			}
		}
		cfg.logf("search: compacted %s (%d KB) to %s, then deleted both", filepath.Base(s.path), len(s.data)>>10, res.Version)
		out[i] = true
	}
	return out, nil
}

var (
	pathPattern  = regexp.MustCompile(`^[A-Za-z0-9_./-]*/[A-Za-z0-9_.-]+\.[a-z]{1,5}$`)
	identPattern = regexp.MustCompile(`^[a-z]+[A-Z][A-Za-z0-9]{5,}$`)
)

// pickQueries draws the queries from the sources' own text with a fixed
// seed: rare phrases (four words of a prompt only one source session
// says), a phrase of each format (of a prompt, an answer, a tool call or
// a tool result only one source of that format says), a phrase of each
// session versioned then deleted, common words, paths tool calls named,
// identifiers of the code in tool results.
func pickQueries(sources []searchSource, versioned map[int]bool) []benchQuery {
	type parsed struct {
		src                     int
		format                  transcript.Format
		prompts, calls, results []string
		// texts are every passage: prompts, answers, calls' arguments,
		// results.
		texts []string
		words string
	}
	var ps []parsed
	for i, s := range sources {
		codec, err := format.Detect(s.path, s.data)
		if err != nil {
			continue
		}
		t, err := codec.Parse(s.data)
		if err != nil {
			continue
		}
		p := parsed{src: i, format: firstCopyFormat(s, i, codec.Format())}
		var all strings.Builder
		for _, m := range t.Messages {
			for _, part := range m.Parts {
				switch {
				case part.Kind == transcript.PartText && m.Role == transcript.RoleUser && m.Origin == transcript.OriginHuman:
					p.prompts = append(p.prompts, part.Text)
				case part.Kind == transcript.PartToolCall:
					p.calls = append(p.calls, part.Args)
				case part.Kind == transcript.PartToolResult:
					p.results = append(p.results, part.Text)
				}
				// What the index holds of a part: its text, or a tool
				// call's name and each string of its arguments (not
				// their keys), each a passage of its own.
				switch part.Kind {
				case transcript.PartReasoning:
				case transcript.PartToolCall:
					p.texts = append(p.texts, part.ToolName)
					var v any
					if json.Unmarshal([]byte(part.Args), &v) != nil {
						p.texts = append(p.texts, part.Args)
						break
					}
					walkStrings(v, func(s string) { p.texts = append(p.texts, s) })
				default:
					p.texts = append(p.texts, part.Text)
				}
				all.WriteString(" " + strings.Join(benchTerms(part.Text+" "+part.Args), " ") + " ")
			}
		}
		p.words = all.String()
		ps = append(ps, p)
	}
	rng := rand.New(rand.NewPCG(32, 2))
	// unique is a phrase of four words of text that no other source
	// says, drawn at random, or "".
	unique := func(i int, text string) string {
		ts := benchTerms(text)
		if len(ts) < 4 {
			return ""
		}
		for range 4 {
			k := rng.IntN(len(ts) - 3)
			phrase := strings.Join(ts[k:k+4], " ")
			n := 0
			for j := range ps {
				if j != i && strings.Contains(ps[j].words, " "+phrase+" ") {
					n++
				}
			}
			if n == 0 {
				return phrase
			}
		}
		return ""
	}
	var out []benchQuery
	// Rare phrases: four words of a prompt that only its session says.
	var phrases []string
	for i, p := range ps {
		for _, prompt := range p.prompts {
			if len(benchTerms(prompt)) < 8 {
				continue
			}
			if phrase := unique(i, prompt); phrase != "" {
				phrases = append(phrases, phrase)
				break
			}
		}
	}
	for _, ph := range draw(rng, phrases, 10) {
		out = append(out, benchQuery{kind: "rare phrase", text: `"` + ph + `"`})
	}
	// A phrase of each format, from a source whose first copy is still
	// on the machine.
	for _, f := range allFormats {
		q := benchQuery{kind: "format", format: string(f)}
	next:
		for i, p := range ps {
			if p.format != f || versioned[p.src] {
				continue
			}
			for _, text := range p.texts {
				if phrase := unique(i, text); phrase != "" {
					q.text = `"` + phrase + `"`
					break next
				}
			}
		}
		// A format with no phrase still counts: as not found.
		out = append(out, q)
	}
	// A phrase of each session that is now only in stored versions.
	for i, p := range ps {
		if !versioned[p.src] {
			continue
		}
		for _, prompt := range p.prompts {
			if phrase := unique(i, prompt); phrase != "" {
				out = append(out, benchQuery{kind: "stored version", text: `"` + phrase + `"`, version: true})
				break
			}
		}
	}
	for _, w := range []string{"the", "error", "test", "file", "function"} {
		out = append(out, benchQuery{kind: "common word", text: w})
	}
	seen := map[string]bool{}
	var paths, idents []string
	for _, p := range ps {
		for _, c := range p.calls {
			var v any
			if json.Unmarshal([]byte(c), &v) != nil {
				continue
			}
			walkStrings(v, func(s string) {
				if len(s) >= 10 && len(s) <= 80 && pathPattern.MatchString(s) && !seen[s] {
					seen[s] = true
					paths = append(paths, s)
				}
			})
		}
		for _, r := range p.results {
			for _, f := range strings.FieldsFunc(r, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }) {
				if identPattern.MatchString(f) && len(f) >= 10 && !seen[f] {
					seen[f] = true
					idents = append(idents, f)
				}
			}
		}
	}
	for _, p := range draw(rng, paths, 10) {
		out = append(out, benchQuery{kind: "path", text: p})
	}
	for _, id := range draw(rng, idents, 10) {
		out = append(out, benchQuery{kind: "identifier", text: id})
	}
	return out
}

// readBytes is what this process and the children it reaped have read
// (Linux's rchar), or -1 where it is not known.
func readBytes() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar: "); ok {
			var n int64
			if _, err := fmt.Sscan(v, &n); err == nil {
				return n
			}
		}
	}
	return -1
}

func ioDelta(base, after int64) string {
	if base < 0 || after < 0 {
		return "? (no /proc/self/io here)"
	}
	return fmt.Sprintf("%d (%d with nothing new, %d after the append)", after-base, base, after)
}

// draw picks n of xs at random (sorted first, so the seed decides).
func draw(rng *rand.Rand, xs []string, n int) []string {
	xs = slices.Clone(xs)
	sort.Strings(xs)
	rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	return xs[:min(n, len(xs))]
}

func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case map[string]any:
		for _, y := range x {
			walkStrings(y, f)
		}
	case []any:
		for _, y := range x {
			walkStrings(y, f)
		}
	}
}

// benchTerms are s's words as the index sees them: runs of letters and
// digits, lower-cased.
func benchTerms(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// appendMarker is what the appended turn says.
const appendMarker = "reconcile the quay manifests before the tide tables"

// appendTurn is a Claude Code prompt and answer, as the agent appends
// them to the session at path (the answer's text about 20 KB).
func appendTurn(path string) []byte {
	var out []byte
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i, l := range []struct{ role, text string }{{"user", appendMarker}, {"assistant", strings.Repeat("The manifests now reconcile line by line. ", 500)}} {
		rec := map[string]any{"parentUuid": nil, "isSidechain": false, "type": l.role, "uuid": fmt.Sprintf("bench-append-%d", i),
			"sessionId": strings.TrimSuffix(filepath.Base(path), ".jsonl"), "timestamp": at.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano),
			"cwd": "/home/ada/src/quay", "message": map[string]any{"role": l.role, "content": []any{map[string]any{"type": "text", "text": l.text}}}}
		if i == 1 {
			rec["parentUuid"] = "bench-append-0"
		}
		b, _ := json.Marshal(rec)
		out = append(append(out, b...), '\n')
	}
	return out
}
