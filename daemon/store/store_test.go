package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/daemon/platform/platformtest"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "state", "compactd", "compactd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestDefaultPath(t *testing.T) {
	j := filepath.Join
	x, st, h, local, profile := j("x", "s.db"), j("st"), j("h"), j("local"), j("profile")
	tests := []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", map[string]string{"COMPACTD_STORE": x, "XDG_STATE_HOME": st, "HOME": h}, x},
		{"linux", map[string]string{"XDG_STATE_HOME": st, "HOME": h}, j(st, "compactd", "compactd.db")},
		{"linux", map[string]string{"HOME": h}, j(h, ".local", "state", "compactd", "compactd.db")},
		{"darwin", map[string]string{"HOME": h}, j(h, ".local", "state", "compactd", "compactd.db")},
		{"windows", map[string]string{"COMPACTD_STORE": x, "LOCALAPPDATA": local}, x},
		{"windows", map[string]string{"XDG_STATE_HOME": st, "LOCALAPPDATA": local}, j(st, "compactd", "compactd.db")},
		// Windows has no HOME of its own (Git Bash sets one): the store
		// goes where Windows keeps programs' local data.
		{"windows", map[string]string{"LOCALAPPDATA": local, "HOME": h, "USERPROFILE": profile}, j(local, "compactd", "compactd.db")},
		{"windows", map[string]string{"USERPROFILE": profile, "HOME": h}, j(profile, "AppData", "Local", "compactd", "compactd.db")},
	}
	for _, tt := range tests {
		got, err := defaultPath(func(k string) string { return tt.env[k] }, tt.goos)
		if err != nil || got != tt.want {
			t.Errorf("%s: defaultPath(%v) = %q, %v; want %q", tt.goos, tt.env, got, err, tt.want)
		}
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		if _, err := defaultPath(func(string) string { return "" }, goos); err == nil {
			t.Errorf("%s: defaultPath with no environment: want an error", goos)
		}
	}
	if got, err := DefaultPath(func(k string) string { return map[string]string{"COMPACTD_STORE": x}[k] }); got != x || err != nil {
		t.Errorf("DefaultPath = %q, %v; want %q", got, err, x)
	}
}

func TestOpenCreatesPrivateWALStore(t *testing.T) {
	if !platformtest.PermissionBits {
		t.Skip("skip: Windows has no Unix permission bits; the store is private by the ACLs of the user's profile folder")
	}
	s := openTemp(t)
	ctx := context.Background()
	var mode string
	if err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	// Write something so the -wal and -shm files exist.
	if _, err := s.EnsureConversation(ctx, Conversation{Key: "path:/a", SourcePath: "/a"}); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		fi, err := os.Stat(s.Path() + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s mode = %v; want no group/other access", filepath.Base(s.Path()+suffix), perm)
		}
	}
	var v int
	s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
	if v != SchemaVersion {
		t.Errorf("user_version = %d; want %d", v, SchemaVersion)
	}
}

func TestOpenRefusesForeignFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	garbage := filepath.Join(dir, "garbage.db")
	content := []byte("this is my shopping list, not a database\n")
	os.WriteFile(garbage, content, 0o600)

	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE recipes(name TEXT); INSERT INTO recipes VALUES ('soup')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	otherBefore, _ := os.ReadFile(other)

	stamped := filepath.Join(dir, "stamped.db")
	db, _ = sql.Open("sqlite", stamped)
	db.Exec(`PRAGMA application_id = 1234; CREATE TABLE conversations(x); CREATE TABLE versions(y)`)
	db.Close()

	for _, path := range []string{garbage, other, stamped} {
		_, err := Open(ctx, path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a compactd store") {
			t.Errorf("Open(%s) error = %v; want one naming the path and saying it is not a compactd store", filepath.Base(path), err)
		}
	}
	if got, _ := os.ReadFile(garbage); !bytes.Equal(got, content) {
		t.Error("the foreign file was modified")
	}
	if got, _ := os.ReadFile(other); !bytes.Equal(got, otherBefore) {
		t.Error("the foreign database was modified")
	}
}

func TestMigrateFromV1Fixture(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	fixture, err := os.ReadFile("testdata/v1.sql")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(fixture)); err != nil {
		t.Fatal(err)
	}
	// Read back what v1 held, to compare after migration.
	want := map[string][]byte{}
	rows, err := db.Query(`SELECT label, content FROM versions`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var l string
		var c []byte
		rows.Scan(&l, &c)
		want[l] = c
	}
	rows.Close()
	db.Close()
	if len(want) != 2 {
		t.Fatalf("fixture holds %d versions; want 2", len(want))
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var uv int
	s.db.QueryRow(`PRAGMA user_version`).Scan(&uv)
	if uv != SchemaVersion {
		t.Fatalf("user_version after migration = %d; want %d", uv, SchemaVersion)
	}
	c, ok, err := s.FindConversation(ctx, "/home/dev/.claude/projects/-home-dev-app/9d1c0f22-2222-4b3c-8d4e-6f7a8b9c0d1e.jsonl", "")
	if err != nil || !ok || c.Key != "session:0b7e5a40-1111-4a2b-9c3d-5e6f7a8b9c0d" {
		t.Fatalf("FindConversation by fork path = %+v, %v, %v", c, ok, err)
	}
	vs, err := s.Versions(ctx, c.ID)
	if err != nil || len(vs) != 2 {
		t.Fatalf("Versions = %d, %v; want 2", len(vs), err)
	}
	if vs[1].Parent != "v1" {
		t.Errorf("v2 parent = %q; want v1", vs[1].Parent)
	}
	for _, v := range vs {
		got, err := s.Content(ctx, v.ContentHash)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want[v.Label]) {
			t.Errorf("%s after migration = %q; want %q", v.Label, got, want[v.Label])
		}
		if v.Size != int64(len(want[v.Label])) {
			t.Errorf("%s size = %d; want %d", v.Label, v.Size, len(want[v.Label]))
		}
	}
	// What both versions share is stored once.
	distinct := map[string]bool{}
	for _, c := range want {
		for _, seg := range segments(c, LineCuts(c)) {
			distinct[string(seg)] = true
		}
	}
	var blobs int
	s.db.QueryRow(`SELECT count(*) FROM blobs`).Scan(&blobs)
	if blobs != len(distinct) {
		t.Errorf("blobs = %d; want %d (one per distinct segment)", blobs, len(distinct))
	}
	if probs, err := s.IntegrityCheck(ctx); err != nil || len(probs) > 0 {
		t.Errorf("integrity after migration: %v %v", probs, err)
	}
	// Reopening an up-to-date store is a no-op.
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	s.db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, SchemaVersion+1))
	path := s.Path()
	s.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open of a newer schema: err = %v; want one saying it is newer", err)
	}
}

func TestRecordVersionLineageAndReuse(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	c, err := s.EnsureConversation(ctx, Conversation{Key: "session:abc", Format: "claude-code", SourcePath: "/p/abc.jsonl", SessionID: "abc"})
	if err != nil {
		t.Fatal(err)
	}
	// Lines large enough to be stored one by one (small ones share chunks).
	pad := strings.Repeat("x", largeRecord)
	src := []byte("line one" + pad + "\nline two" + pad + "\nline three" + pad + "\n")
	v1, reused, err := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindSource, SourcePath: "/p/abc.jsonl", Content: src, Cuts: LineCuts(src)})
	if err != nil || reused || v1.Label != "v1" {
		t.Fatalf("first source = %+v reused=%v err=%v", v1, reused, err)
	}
	again, reused, err := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindSource, SourcePath: "/p/abc.jsonl", Content: src, Cuts: LineCuts(src)})
	if err != nil || !reused || again.Label != "v1" {
		t.Fatalf("unchanged source recorded again = %s reused=%v err=%v; want v1 reused", again.Label, reused, err)
	}
	out := []byte("line three" + pad + "\n")
	v2, _, err := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindCompact, ParentID: v1.ID,
		SourcePath: "/p/abc.jsonl", SourceHash: v1.ContentHash, Pipeline: []string{"turn-window"},
		Report: map[string]int{"tokensBefore": 30}, TokensBefore: 30, TokensAfter: 10, ForkPath: "/p/new.jsonl",
		Content: out, Cuts: LineCuts(out)})
	if err != nil {
		t.Fatal(err)
	}
	if v2.Label != "v2" || v2.Parent != "v1" || v2.Pipeline[0] != "turn-window" || v2.TokensAfter != 10 {
		t.Errorf("v2 = %+v", v2)
	}
	if got, ok, _ := s.FindConversation(ctx, "/p/new.jsonl", ""); !ok || got.ID != c.ID {
		t.Errorf("fork path does not lead back to its conversation")
	}
	_, err = s.Version(ctx, c.ID, "v9")
	var uv *UnknownVersionError
	if !errors.As(err, &uv) || !strings.Contains(err.Error(), "v1, v2") {
		t.Errorf("unknown version error = %v; want one listing v1, v2", err)
	}
	if v, err := s.Version(ctx, c.ID, "2"); err != nil || v.ID != v2.ID {
		t.Errorf(`Version("2") = %v, %v`, v.Label, err)
	}
	var blobs int
	s.db.QueryRow(`SELECT count(*) FROM blobs`).Scan(&blobs)
	if blobs != 3 {
		t.Errorf("blobs = %d; want 3 (line three shared)", blobs)
	}
}

func TestContentRoundTripsExactBytes(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	c, _ := s.EnsureConversation(ctx, Conversation{Key: "path:/x", SourcePath: "/x"})
	cases := [][]byte{
		{},
		[]byte("no newline at all"),
		[]byte("partial last line\n{\"type\":\"us"),
		[]byte("crlf\r\nlines\r\n"),
		{0xff, 0xfe, '\n', 0xed, 0xa0, 0x80, '\n'}, // invalid UTF-8, lone surrogate
		bytes.Repeat([]byte("x"), 3<<20),           // one huge line
	}
	for i, b := range cases {
		v, _, err := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindCompact, Content: b, Cuts: append(LineCuts(b), -5, 1<<40)})
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		got, err := s.Content(ctx, v.ContentHash)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !bytes.Equal(got, b) {
			t.Errorf("case %d: round trip differs (%d bytes vs %d)", i, len(got), len(b))
		}
	}
}

func TestContentDetectsDamage(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	c, _ := s.EnsureConversation(ctx, Conversation{Key: "path:/x", SourcePath: "/x"})
	b := []byte("alpha\nbeta\n")
	v, _, _ := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindSource, Content: b, Cuts: LineCuts(b)})
	if _, err := s.db.Exec(`UPDATE blobs SET data = x'00' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Content(ctx, v.ContentHash); err == nil {
		t.Error("Content of a damaged segment: want an error")
	}
}

func TestTokenCacheSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	a := tokens.Key{Sum: sha256.Sum256([]byte("a")), Encoding: "o200k_base"}
	b := tokens.Key{Sum: sha256.Sum256([]byte("b")), Encoding: "o200k_base"}
	cache := s.NewTokenCache(0)
	cache.Put(a, tokens.Count{N: 1})
	cache.Put(b, tokens.Count{N: 7, Approx: true})
	if err := cache.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	fresh := s2.NewTokenCache(0)
	if n, ok := fresh.Get(b); !ok || n.N != 7 || !n.Approx {
		t.Errorf("after reopen Get(b) = %+v, %v; want 7 approx", n, ok)
	}
	other := a
	other.Encoding = "cl100k_base"
	if _, ok := fresh.Get(other); ok {
		t.Error("a count under another encoding was returned")
	}
	// Through a real Counter: the second counter, on a reopened store,
	// counts nothing itself.
	text := strings.Repeat("the quick brown fox jumps over the lazy dog. ", 20)
	c1, err := tokens.New("o200k_base", tokens.WithCache(fresh))
	if err != nil {
		t.Fatal(err)
	}
	want := c1.Text(text)
	fresh.Flush(ctx)
	s2.Close()
	s3, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	c2, _ := tokens.New("o200k_base", tokens.WithCache(s3.NewTokenCache(0)))
	if got := c2.Text(text); got != want {
		t.Errorf("cached count = %d; want %d", got, want)
	}
	if st := c2.Stats(); st.CacheHits != 1 {
		t.Errorf("cache hits after restart = %d; want 1", st.CacheHits)
	}
}
