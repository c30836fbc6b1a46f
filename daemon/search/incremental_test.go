package search

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon/store"
)

// claudeSession writes Claude Code lines: a prompt and an answer per
// turn, each saying its words.
type claudeSession struct {
	path string
	n    int
	at   time.Time
}

func newClaudeSession(t *testing.T, m *machine, name string) *claudeSession {
	t.Helper()
	dir := filepath.Join(m.home, ".claude", "projects", slug(filepath.Join(m.home, "src", "shop")))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &claudeSession{path: filepath.Join(dir, name+".jsonl"), at: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
}

// lines renders a turn: the prompt, then the answer.
func (c *claudeSession) lines(t *testing.T, prompt, answer string) []byte {
	t.Helper()
	var b strings.Builder
	for _, l := range []struct{ role, text string }{{"user", prompt}, {"assistant", answer}} {
		parent := any(nil)
		if c.n > 0 {
			parent = fmt.Sprintf("u%d", c.n-1)
		}
		c.at = c.at.Add(time.Minute)
		rec := map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/home/ada/src/shop",
			"sessionId": "9a1b2c3d-0000-4000-8000-00000000beef", "version": "2.1.152", "type": l.role, "uuid": fmt.Sprintf("u%d", c.n),
			"timestamp": c.at.Format(time.RFC3339Nano), "message": map[string]any{"role": l.role, "content": []any{map[string]any{"type": "text", "text": l.text}}}}
		if l.role == "assistant" {
			rec["message"].(map[string]any)["model"] = "claude-sonnet-4-5"
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
		c.n++
	}
	return []byte(b.String())
}

func (c *claudeSession) write(t *testing.T, data []byte) {
	t.Helper()
	writeFile(t, c.path, data)
}

func (c *claudeSession) append(t *testing.T, data []byte) {
	t.Helper()
	f, err := os.OpenFile(c.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// filler is prose of n bytes or so, words no probe uses.
func filler(n int) string {
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(words[i%len(words)])
		b.WriteByte(' ')
	}
	return b.String()
}

func find(t *testing.T, x *Index, q string) *Results {
	t.Helper()
	res, err := x.Search(t.Context(), Query{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func sizes(t *testing.T, st *store.Store) store.SearchSize {
	t.Helper()
	z, err := st.SearchSize(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// TestAnAppendIndexesWhatWasAppended: a session that grows is indexed for
// what it grew by (and the short piece it ended on), its earlier words
// still found, no piece twice.
func TestAnAppendIndexesWhatWasAppended(t *testing.T) {
	m := newMachine(t)
	x := m.index(t)
	s := newClaudeSession(t, m, "9a1b2c3d-0000-4000-8000-00000000beef")
	var body []byte
	for i := range 12 {
		body = append(body, s.lines(t, fmt.Sprintf("turn %d: %s", i, filler(6000)), filler(6000))...)
	}
	body = append(body, s.lines(t, "migrate the warehouse ledger to postgres", "The ledger now lives in postgres.")...)
	s.write(t, body)
	first, err := x.Sync(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.Bytes != int64(len(body)) {
		t.Fatalf("first sync read %d bytes, want the file's %d", first.Bytes, len(body))
	}
	before := sizes(t, m.st)

	more := s.lines(t, "now add a quarantine flag to every pallet", "Added the quarantine flag.")
	s.append(t, more)
	st, err := x.Update(t.Context(), s.path)
	if err != nil {
		t.Fatal(err)
	}
	// What was appended, and the last piece again when it was short.
	if st.Indexed != 1 || st.Bytes < int64(len(more)) || st.Bytes > int64(len(more))+shortPiece {
		t.Fatalf("the append read %d bytes for %d appended: %+v", st.Bytes, len(more), st)
	}
	for _, q := range []string{`"quarantine flag to every pallet"`, `"migrate the warehouse ledger"`, `"turn 0"`} {
		if res := find(t, x, q); !has(res, s.path, "", "user", "text") {
			t.Errorf("%s not found after the append:%s", q, describeHits(res))
		}
	}
	after := sizes(t, m.st)
	if after.TextBytes-before.TextBytes > int64(len(more)) {
		t.Errorf("the index's text grew by %d for %d appended bytes", after.TextBytes-before.TextBytes, len(more))
	}
	// Line by line, as an agent writes: one piece, not one per line.
	for i := range 20 {
		s.append(t, s.lines(t, fmt.Sprintf("small step %d", i), "ok"))
		if _, err := x.Update(t.Context(), s.path); err != nil {
			t.Fatal(err)
		}
	}
	if grown := sizes(t, m.st).Chunks - after.Chunks; grown > 1 {
		t.Errorf("20 small appends added %d pieces, want at most 1", grown)
	}
	if res := find(t, x, `"small step 0"`); !has(res, s.path, "", "user", "text") {
		t.Errorf("the first small append is lost:%s", describeHits(res))
	}
	// Unchanged: nothing read.
	if st, err := x.Sync(t.Context(), nil); err != nil || st.Indexed != 0 || st.Bytes != 0 {
		t.Fatalf("a sync with nothing changed: %+v, %v", st, err)
	}
}

// TestARewrittenSessionIsIndexedAgain: a session truncated or rewritten
// (an in-place compaction, a file replaced) loses the words it no longer
// says; a deleted one leaves the index.
func TestARewrittenSessionIsIndexedAgain(t *testing.T) {
	m := newMachine(t)
	x := m.index(t)
	s := newClaudeSession(t, m, "9a1b2c3d-0000-4000-8000-00000000beef")
	// Pieces longer than a short one: the rewrite is told from an append
	// by the file's fingerprint alone.
	session := func(first, second string) []byte {
		s.n = 0
		return append(append(s.lines(t, first, filler(20000)), s.lines(t, second, filler(20000))...), s.lines(t, "and then", filler(20000))...)
	}
	s.write(t, session("rename the invoice table", "drop the legacy coupons"))
	if _, err := x.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	// Rewritten longer: the same size check would not see it, the
	// fingerprint does.
	s.write(t, session("rename the receipt table", "keep the legacy coupons and more words here"))
	if _, err := x.Update(t.Context(), s.path); err != nil {
		t.Fatal(err)
	}
	if res := find(t, x, `"drop the legacy coupons"`); len(res.Hits) != 0 {
		t.Errorf("words the session no longer says are found:%s", describeHits(res))
	}
	// Not only filtered out by the check against the file: gone from the
	// index.
	if c, err := m.st.MatchSearch(t.Context(), `"drop" AND "coupons"`, nil, 10); err != nil || len(c) != 0 {
		t.Errorf("the index still holds the old words: %d pieces (%v)", len(c), err)
	}
	if res := find(t, x, `"keep the legacy coupons"`); !has(res, s.path, "", "user", "text") {
		t.Errorf("the rewritten session's words are not found:%s", describeHits(res))
	}
	// Truncated.
	s.n = 0
	s.write(t, s.lines(t, "only this remains", "Yes."))
	if _, err := x.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if c, err := m.st.MatchSearch(t.Context(), `"receipt"`, nil, 10); err != nil || len(c) != 0 {
		t.Errorf("a truncated session's old words are in the index: %d pieces (%v)", len(c), err)
	}
	if res := find(t, x, `"only this remains"`); !has(res, s.path, "", "user", "text") {
		t.Errorf("the truncated session's words are not found:%s", describeHits(res))
	}
	// Deleted.
	if err := os.Remove(s.path); err != nil {
		t.Fatal(err)
	}
	st, err := x.Sync(t.Context(), nil)
	if err != nil || st.Removed != 1 {
		t.Fatalf("sync after a deletion: %+v, %v", st, err)
	}
	if res := find(t, x, "remains"); len(res.Hits) != 0 {
		t.Errorf("a deleted session is found:%s", describeHits(res))
	}
	if z := sizes(t, m.st); z.Docs != 0 || z.Chunks != 0 {
		t.Errorf("the deleted session left %d entries and %d pieces", z.Docs, z.Chunks)
	}
}

// TestStoredVersionsAreSearched: what only a stored version holds (its
// transcript long gone) is found, named by its conversation and label.
func TestStoredVersionsAreSearched(t *testing.T) {
	m := newMachine(t)
	s := newClaudeSession(t, m, "5e5e5e5e-0000-4000-8000-000000000001")
	data := append(s.lines(t, "the tax rounding must use banker's rounding", "Noted."), s.lines(t, "and ship it", "Shipped.")...)
	ctx := t.Context()
	conv, err := m.st.EnsureConversation(ctx, store.Conversation{Key: "session:5e5e5e5e-0000-4000-8000-000000000001", Format: "claude-code", SourcePath: s.path, SessionID: "5e5e5e5e-0000-4000-8000-000000000001"})
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := m.st.RecordVersion(ctx, store.NewVersion{Conversation: conv, Kind: store.KindSource, SourcePath: s.path, Format: "claude-code", Content: data, Cuts: store.LineCuts(data)})
	if err != nil {
		t.Fatal(err)
	}
	x := m.index(t)
	if _, err := x.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res := find(t, x, `"banker's rounding"`)
	if !has(res, "", v.Label, "user", "text") || res.Hits[0].Conversation != conv.Key {
		t.Fatalf("the stored version's words:%s", describeHits(res))
	}
	if _, err := x.Materialize(ctx, res.Hits[0]); err == nil {
		t.Error("a version with no file on disk opened")
	}
	// The MCP tool's scope: one conversation.
	res, err = x.Search(ctx, Query{Text: "rounding", Conversation: "session:other"})
	if err != nil || len(res.Hits) != 0 {
		t.Fatalf("another conversation's scope: %v%s", err, describeHits(res))
	}
	res, err = x.Search(ctx, Query{Text: "rounding", Conversation: conv.Key})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("its conversation's scope: %v%s", err, describeHits(res))
	}
}

// TestTheIndexStaysWithinItsSize: past its size, the sessions least
// recently active leave the index (the newest stay found), and an
// unchanged evicted session is not indexed again by the next sync.
func TestTheIndexStaysWithinItsSize(t *testing.T) {
	m := newMachine(t)
	var sessions []*claudeSession
	for i := range 12 {
		s := newClaudeSession(t, m, fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
		s.at = time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC)
		var body []byte
		for k := range 8 {
			body = append(body, s.lines(t, fmt.Sprintf("session%d keyword%d %s", i, k, uniqueWords(i, k, 3000)), uniqueWords(i, k+50, 3000))...)
		}
		s.write(t, body)
		sessions = append(sessions, s)
	}
	unbounded := m.index(t)
	if _, err := unbounded.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	full := sizes(t, m.st)
	max := full.IndexBytes * 2 / 3
	x := m.index(t, func(o *Options) { o.MaxBytes = max })
	st, err := x.Sync(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Evicted == 0 {
		t.Fatalf("nothing evicted at %d bytes of %d", max, full.IndexBytes)
	}
	if z := sizes(t, m.st); z.IndexBytes > max {
		t.Errorf("the index is %d bytes, over its %d", z.IndexBytes, max)
	}
	if res := find(t, x, "session11"); !has(res, sessions[11].path, "", "", "") {
		t.Errorf("the newest session left the index:%s", describeHits(res))
	}
	if res := find(t, x, "session0"); len(res.Hits) != 0 {
		t.Errorf("the oldest session is still indexed:%s", describeHits(res))
	}
	if st, err := x.Sync(t.Context(), nil); err != nil || st.Indexed != 0 {
		t.Errorf("the next sync indexed %d sources again (%v)", st.Indexed, err)
	}
}

// uniqueWords is n bytes of words of session i's own ("w<i>x<k>y<j>").
func uniqueWords(i, k, n int) string {
	var b strings.Builder
	for j := 0; b.Len() < n; j++ {
		fmt.Fprintf(&b, "w%dx%dy%d ", i, k, j)
	}
	return b.String()
}

// TestTwoProcessesIndexOnce: two indexes of one store (a server and a
// CLI) syncing at once index every session once.
func TestTwoProcessesIndexOnce(t *testing.T) {
	m := newMachine(t)
	sessions := everyFormat(t, m)
	other := m.openStore(t)
	a := m.index(t)
	b := New(Options{Store: other, Env: m.env, Folders: func() []string { return []string{m.ws} }})
	t.Cleanup(func() { b.Close() })
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, x := range []*Index{a, b} {
		wg.Go(func() { _, errs[i] = x.Sync(context.Background(), nil) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	docs, err := m.st.SearchDocs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, d := range docs {
		seen[d.Source]++
	}
	for src, n := range seen {
		if n != 1 {
			t.Errorf("%s indexed %d times", src, n)
		}
	}
	res := find(t, a, "calc")
	if len(res.Hits) == 0 {
		t.Fatalf("nothing found after two syncs")
	}
	var pieces int64
	if err := m.st.DB().QueryRow(`SELECT count(*) FROM search_chunks c LEFT JOIN search_docs d ON d.id = c.doc WHERE d.id IS NULL`).Scan(&pieces); err != nil || pieces != 0 {
		t.Errorf("%d pieces of no source (%v)", pieces, err)
	}
	_ = sessions
}

// TestALargeDocumentIsCheckedWithoutItsParse: a JSON document past the
// size a query parses again (a long Messages API request) is found by a
// phrase of one of its messages, checked against the piece's own strings,
// at its line.
func TestALargeDocumentIsCheckedWithoutItsParse(t *testing.T) {
	m := newMachine(t)
	// A request as an agent sends it: a system prompt, a tool call and
	// its result (what marks it as the Messages API's), then a long
	// conversation.
	msgs := []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Fix the failing test in calc.go"}}},
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "Let me read the file."},
			map[string]any{"type": "tool_use", "id": "toolu_01", "name": "Read", "input": map[string]any{"file_path": "/src/calc.go"}},
		}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_01", "content": "package calc\n\nfunc Add(a, b int) int { return a - b }\n"},
		}},
	}
	req := map[string]any{
		"model":      "claude-sonnet-4-5",
		"max_tokens": 4096,
		"system":     []any{map[string]any{"type": "text", "text": "You are a careful coding agent."}},
	}
	for i := range 200 {
		text := fmt.Sprintf("step %d: %s", i, filler(6000))
		if i == 150 {
			text = "reconcile the harbour ledger\nbefore the audit"
		}
		role := "assistant"
		if i%2 == 1 {
			role = "user"
		}
		msgs = append(msgs, map[string]any{"role": role, "content": []any{map[string]any{"type": "text", "text": text}}})
	}
	req["messages"] = msgs
	data, err := json.MarshalIndent(req, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if len(data) <= wholeParseLimit {
		t.Fatalf("the document is %d bytes, not past %d", len(data), wholeParseLimit)
	}
	path := writeFile(t, filepath.Join(m.ws, "logs", "long-request.json"), data)
	x := m.index(t)
	if _, err := x.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	res := find(t, x, `"harbour ledger before the audit"`)
	if len(res.Hits) != 1 || res.Hits[0].Path != path || !strings.Contains(res.Hits[0].Snippet, "harbour ledger before the audit") {
		t.Fatalf("the phrase across a line break of one message:%s", describeHits(res))
	}
	want := 1 + strings.Count(string(data[:strings.Index(string(data), "reconcile the harbour")]), "\n")
	if res.Hits[0].Line != int64(want) {
		t.Errorf("the hit is on line %d, want %d", res.Hits[0].Line, want)
	}
	if res := find(t, x, `"harbour audit"`); len(res.Hits) != 0 {
		t.Errorf("words of one message apart were taken for a phrase:%s", describeHits(res))
	}
}
