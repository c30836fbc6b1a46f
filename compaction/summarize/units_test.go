package summarize_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/transcript"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct {
		in, secret string
		n          int
	}{
		{"key sk-proj-abcdefghijklmnopqrstuvwxyz0123", "abcdefghijklmnopqrstuvwxyz0123", 1},
		{"ANTHROPIC_API_KEY=sk-ant-api03-AAAABBBBCCCCDDDDEEEE", "AAAABBBBCCCCDDDDEEEE", 1},
		{"aws AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE", 1},
		{"ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "aBcDeFgHiJkLmNoP", 1},
		{"slack xoxb-1234567890-abcdefghij", "1234567890-abcdefghij", 1},
		{"curl -H 'Authorization: Bearer abc.def-ghi_jkl012345'", "abc.def-ghi_jkl012345", 1},
		{`{"api_key": "live_51Habcdefgh"}`, "live_51Habcdefgh", 1},
		{"password=hunter2hunter2", "hunter2hunter2", 1},
		{"token: 9f8e7d6c5b4a", "9f8e7d6c5b4a", 1},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N", "dozjgNryP4J3jVmNHl0w5N", 1},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAA", 1},
		{"postgres://admin:s3cr3t!@db:5432/x", "s3cr3t!", 1},
		// Not secrets.
		{"max_tokens: 4096 and token: 512", "", 0},
		{"token: $GITHUB_TOKEN", "", 0},
		{"see https://example.com/a/b and sk-short", "", 0},
	} {
		out, n := summarize.Redact(tc.in)
		if n != tc.n || (tc.secret != "" && strings.Contains(out, tc.secret)) {
			t.Errorf("Redact(%q) = %q, %d; want %d secrets removed", tc.in, out, n, tc.n)
		}
		if tc.n == 0 && out != tc.in {
			t.Errorf("Redact(%q) changed clean text to %q", tc.in, out)
		}
		if again, m := summarize.Redact(out); m != 0 || again != out {
			t.Errorf("Redact is not idempotent on %q: %q (%d)", out, again, m)
		}
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("password=abcd1234 sk-ant-xxxxxxxxxxxxxxxx")
	f.Add("-----BEGIN RSA PRIVATE KEY-----\nabc")
	f.Add("\xff\xfe token: \xed\xa0\x80")
	f.Fuzz(func(t *testing.T, s string) {
		out, n := summarize.Redact(s)
		if n == 0 && out != s {
			t.Fatalf("changed without redacting: %q → %q", s, out)
		}
		if _, m := summarize.Redact(out); m != 0 {
			t.Fatalf("second pass found %d more secrets in %q", m, out)
		}
	})
}

func TestPlan(t *testing.T) {
	turns := make([]transcript.Turn, 10)
	for _, tc := range []struct {
		name          string
		counts        []int
		buffer, cap   int
		archive, kept int
	}{
		{"default four turns fit", []int{9, 9, 9, 9, 9, 9, 10, 10, 10, 10}, -1, 100, 6, 4},
		{"degrades to three", []int{9, 9, 9, 9, 9, 9, 70, 10, 10, 10}, 4, 50, 7, 3},
		{"degrades to one", []int{0, 0, 0, 0, 0, 0, 0, 0, 60, 40}, 4, 50, 9, 1},
		{"degrades to none", []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 80}, 4, 50, 10, 0},
		{"no cap", []int{1, 1, 1, 1, 1, 1, 1e6, 1, 1, 1}, 4, 0, 6, 4},
		{"buffer larger than history", []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 20, 100, 0, 10},
	} {
		p := summarize.Plan(turns, tc.counts, tc.buffer, tc.cap)
		if p.Archive != tc.archive || p.BufferTurns != tc.kept {
			t.Errorf("%s: Plan = %+v, want archive %d, buffer %d", tc.name, p, tc.archive, tc.kept)
		}
		if tc.cap > 0 && p.BufferTokens > tc.cap {
			t.Errorf("%s: buffer of %d tokens passes the cap %d", tc.name, p.BufferTokens, tc.cap)
		}
	}
}

func TestNotes(t *testing.T) {
	ctx := context.Background()
	req := summarize.Request{FromTurn: 0, ToTurn: 7}
	for _, content := range [][]byte{nil, {}, []byte(" \n\t\n"), []byte("\xef\xbb\xbf\n")} {
		s, err := (&summarize.Notes{Content: content, Source: "/tmp/notes.md"}).Summarize(ctx, req)
		if !errors.Is(err, summarize.ErrNoNotes) || s.Text != "" {
			t.Errorf("notes %q: summary %q, err %v; want ErrNoNotes", content, s.Text, err)
		}
		if err != nil && !strings.Contains(err.Error(), "/tmp/notes.md") {
			t.Errorf("error %q does not name the notes file", err)
		}
	}
	notes := []byte("# Findings\n- reserve.go leaks holds on timeout\n- db password=hunter2hunter2\n\xff bad byte\n")
	s, err := (&summarize.Notes{Content: notes}).Summarize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Text, "reserve.go leaks holds on timeout") || strings.Contains(s.Text, "hunter2") || s.Redacted != 1 || !utf8.ValidString(s.Text) {
		t.Errorf("notes summary = %+v", s)
	}
	if s.FromTurn != 0 || s.ToTurn != 7 || s.Model != "notes" || s.Tokens == 0 {
		t.Errorf("metadata = %+v", s)
	}
}

func TestTruncateKeepsHeadTailAndUTF8(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 500; i++ {
		b.WriteString("línea número ")
		b.WriteString(strings.Repeat("é", i%7))
		b.WriteString("\n")
	}
	b.WriteString("FAIL: the final verdict\n")
	out := summarize.Truncate(b.String(), 600)
	if len(out) > 700 || !strings.HasPrefix(out, "línea") || !strings.Contains(out, "FAIL: the final verdict") || !strings.Contains(out, "lines omitted") || !utf8.ValidString(out) {
		t.Fatalf("Truncate = %q", out)
	}
}

// The extractive merge folds summaries without losing their facts.
func TestAdditiveExtractiveMerge(t *testing.T) {
	c := newCounter(t)
	msgs := genSession(4, 24)
	turns := transcript.BuildTurns(msgs)
	add := &summarize.Additive{Summarizer: &summarize.Extractive{Counter: c, Budget: 1200}, Archive: &summarize.MemoryArchive{}, Budget: 2500, Counter: c}
	ctx := context.Background()
	var got []summarize.Summary
	for _, to := range []int{6, 12, 18, 24} {
		var err error
		if got, err = add.Summarize(ctx, "x", msgs, turns, to); err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for _, s := range got {
		total += c.Text(s.Text)
	}
	if got[0].Level == 0 || got[0].FromTurn != 0 || got[len(got)-1].ToTurn != 24 || total > 2500+1200 {
		t.Fatalf("after four cycles: %d summaries, levels %d, %d tokens", len(got), got[0].Level, total)
	}
	if !strings.Contains(got[0].Text, "Never edit files under vendor/") {
		t.Errorf("the merge lost the project's standing rule:\n%s", got[0].Text)
	}
}
