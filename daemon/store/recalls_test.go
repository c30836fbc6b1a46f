package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func recallOf(handle, content string) RecallContent {
	return RecallContent{Handle: handle, Sum: sha256.Sum256([]byte(content)), Content: []byte(content)}
}

// recordWithRecalls records a compact version naming rs.
func recordWithRecalls(t *testing.T, s *Store, conv Conversation, rs ...RecallContent) (Version, error) {
	t.Helper()
	content := []byte("{\"a\":1}\n")
	return func() (Version, error) {
		v, _, err := s.RecordVersion(context.Background(), NewVersion{
			Conversation: conv, Kind: KindCompact, SourcePath: conv.SourcePath, Content: content, Cuts: LineCuts(content),
			ForkPath: conv.SourcePath + ".fork", Recalls: rs,
		})
		return v, err
	}()
}

func TestRecallReturnsTheExactContentAcrossRestarts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "compactd.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := s.EnsureConversation(ctx, Conversation{Key: "path:/p/a.jsonl", SourcePath: "/p/a.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	output := "line1\n\tindented \"quoted\" <tag> & é 漢字 🙂\ntrailing   \n\nno newline"
	if _, err := recordWithRecalls(t, s, conv, recallOf("r0a1b2c", output), recallOf("r0a1b2d", "other")); err != nil {
		t.Fatal(err)
	}
	// A second version naming the same content links it again.
	if _, err := recordWithRecalls(t, s, conv, recallOf("r0a1b2c", output)); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Recall(ctx, "r0a1b2c")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Content) != output {
		t.Fatalf("recall = %q, want %q", got.Content, output)
	}
	if len(got.Versions) != 2 || got.Versions[0].Version != "v1" || got.Versions[1].Version != "v2" || got.Versions[0].SourcePath != "/p/a.jsonl" {
		t.Fatalf("versions naming it: %+v", got.Versions)
	}
	if h, ok, err := s.HandleOf(ctx, sha256.Sum256([]byte(output))); err != nil || !ok || h != "r0a1b2c" {
		t.Fatalf("HandleOf = %q %v %v", h, ok, err)
	}
}

func TestRecallOfAnUnknownHandleOrDamagedContentIsAClearError(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	_, err := s.Recall(ctx, "r123456")
	var unknown *UnknownHandleError
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), "no recall handle r123456") || !strings.Contains(err.Error(), s.Path()) {
		t.Fatalf("unknown handle: %v", err)
	}
	conv, _ := s.EnsureConversation(ctx, Conversation{Key: "path:/p/b", SourcePath: "/p/b"})
	if _, err := recordWithRecalls(t, s, conv, recallOf("rabcdef", "the original")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE recalls SET data = x'00112233' WHERE handle = 'rabcdef'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recall(ctx, "rabcdef"); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "rabcdef") {
		t.Fatalf("damaged content: %v", err)
	}
}

func TestRecallHandlesStayUnique(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	conv, _ := s.EnsureConversation(ctx, Conversation{Key: "path:/p/c", SourcePath: "/p/c"})
	if _, err := recordWithRecalls(t, s, conv, recallOf("r111111", "first")); err != nil {
		t.Fatal(err)
	}
	// Another content under a taken handle fails the record whole.
	if _, err := recordWithRecalls(t, s, conv, recallOf("r222222", "fine"), recallOf("r111111", "second")); err == nil {
		t.Fatal("a taken handle was given to other content")
	}
	if _, err := s.Recall(ctx, "r222222"); err == nil {
		t.Fatal("the failed record left part of its recalls behind")
	}
	// The same content under another handle too.
	if _, err := recordWithRecalls(t, s, conv, recallOf("r333333", "first")); err == nil {
		t.Fatal("one content was given two handles")
	}
	vs, _ := s.Versions(ctx, conv.ID)
	if len(vs) != 1 {
		t.Fatalf("%d versions; the failed records must leave none", len(vs))
	}
}

func TestDeleteUnwrittenDropsTheVersionsLinksNotTheContent(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	conv, _ := s.EnsureConversation(ctx, Conversation{Key: "path:/p/d", SourcePath: "/p/d"})
	v, err := recordWithRecalls(t, s, conv, recallOf("r444444", "kept"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteUnwritten(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	if hs, _ := s.VersionHandles(ctx, v.ID); len(hs) != 0 {
		t.Fatalf("links left: %v", hs)
	}
	if got, err := s.Recall(ctx, "r444444"); err != nil || len(got.Versions) != 0 {
		t.Fatalf("recall after the version went: %+v %v", got, err)
	}
}

func TestRecoverKeepsRecalls(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "compactd.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	conv, _ := s.EnsureConversation(ctx, Conversation{Key: "path:/p/e", SourcePath: "/p/e"})
	if _, err := recordWithRecalls(t, s, conv, recallOf("r555555", "survives recovery")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Recover(ctx, path); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Recall(ctx, "r555555")
	if err != nil || string(got.Content) != "survives recovery" || len(got.Versions) != 1 {
		t.Fatalf("after recovery: %+v %v", got, err)
	}
}
