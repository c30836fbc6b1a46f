package formattest

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

// RoundTripFiles checks RoundTrip on each file in its own subtest (named
// by the base name) and hands the parse to check, when not nil, for the
// codec's own assertions.
func RoundTripFiles(t *testing.T, c format.Codec, files []string, check func(t *testing.T, path string, src []byte, tr *transcript.Transcript)) {
	t.Helper()
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src := Read(t, f)
			tr := RoundTrip(t, c, f, src)
			if check != nil {
				check(t, f, src, tr)
			}
		})
	}
}

// WriteBack parses src and, when it parses, checks Write gives it back
// byte for byte; it returns nil when src is not in c's format. It is the
// core of every FuzzParse target.
func WriteBack(t testing.TB, c format.Codec, src []byte) *transcript.Transcript {
	t.Helper()
	tr, err := c.Parse(src)
	if err != nil {
		return nil
	}
	out, err := c.Write(tr)
	if err != nil || !bytes.Equal(out, src) {
		t.Fatalf("Write(Parse(src)) is not src (write error %v; %d vs %d bytes)", err, len(out), len(src))
	}
	return tr
}

// UnchangedForkIsSource checks that forking tr's unchanged view gives src
// back, for codecs whose fork of an untouched view is the source itself.
func UnchangedForkIsSource(t testing.TB, c format.Codec, tr *transcript.Transcript, src []byte, opts format.ForkOptions) {
	t.Helper()
	out, err := c.Fork(transcript.NewView(tr), opts)
	if err != nil || !bytes.Equal(out, src) {
		t.Fatalf("fork of an unchanged view differs from the source (error %v; %d vs %d bytes)", err, len(out), len(src))
	}
}

// ForkParse forks v and parses the fork, failing the test when either
// step errs.
func ForkParse(t testing.TB, c format.Codec, v *transcript.View, opts format.ForkOptions) ([]byte, *transcript.Transcript) {
	t.Helper()
	out, err := c.Fork(v, opts)
	if err != nil {
		t.Fatalf("fork: %v", err)
	}
	back, err := c.Parse(out)
	if err != nil {
		t.Fatalf("fork does not re-parse: %v\n%s", err, out)
	}
	return out, back
}

// Lines renders messages one line per part, "role kind|text|call id|args",
// leaving out parts whose text is one of omit (a codec's filler, such as
// an acknowledgement it adds to keep roles alternating).
func Lines(msgs []transcript.Message, omit ...string) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Text != "" && slices.Contains(omit, p.Text) {
				continue
			}
			out = append(out, fmt.Sprintf("%s %s|%s|%s|%s", m.Role, p.Kind, p.Text, p.ToolCallID, p.Args))
		}
	}
	return out
}

// ViewLines is what a fork of v must re-parse to, in Lines form: the
// view's messages, each summary a user text part before the message it
// names. Parts whose text is one of omit are left out, as in Lines.
func ViewLines(v *transcript.View, omit ...string) []string {
	var out []string
	for i, m := range v.Messages {
		for _, s := range v.Summaries {
			if s.Before == i {
				out = append(out, fmt.Sprintf("user text|%s||", s.Text))
			}
		}
		out = append(out, Lines([]transcript.Message{m}, omit...)...)
	}
	return out
}

// SameLines fails the test when a re-parsed fork's lines differ from the
// wanted ones, listing both.
func SameLines(t testing.TB, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("re-parsed fork:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Alternates fails the test when two non-system messages in a row have
// the same role, which APIs that demand alternation reject.
func Alternates(t testing.TB, msgs []transcript.Message) {
	t.Helper()
	prev := transcript.Role("")
	for _, m := range msgs {
		if m.Role == transcript.RoleSystem {
			continue
		}
		if m.Role == prev {
			t.Errorf("two %s messages in a row", m.Role)
		}
		prev = m.Role
	}
}

// Renewed checks c's Renew on tr, the parse of src, under the new session
// id session: the copy parses to as many records and the same messages,
// names session as its own, keeps every line in its place and byte for
// byte apart from those that name the session; it returns how many lines
// changed, for the codec's own count.
func Renewed(t *testing.T, c format.Codec, tr *transcript.Transcript, src []byte, session string) int {
	t.Helper()
	r, ok := c.(format.Renewer)
	if !ok {
		t.Fatalf("%s codec is not a Renewer", c.Format())
	}
	out, err := r.Renew(tr, format.ForkOptions{SessionID: session})
	if err != nil {
		t.Fatalf("renew: %v", err)
	}
	back, err := c.Parse(out)
	if err != nil {
		t.Fatalf("renewed copy does not parse: %v\n%s", err, out)
	}
	if back.Meta.SessionID != session || len(back.Records) != len(tr.Records) {
		t.Fatalf("renewed copy names session %q (want %q), has %d records (source %d)", back.Meta.SessionID, session, len(back.Records), len(tr.Records))
	}
	if i, same := SameContent(back.Messages, tr.Messages); !same {
		t.Fatalf("renewed copy's message %d differs from the source's", i)
	}
	was, now := bytes.Split(src, []byte("\n")), bytes.Split(out, []byte("\n"))
	if len(was) != len(now) {
		t.Fatalf("renewed copy has %d lines, source %d", len(now), len(was))
	}
	changed := 0
	for i := range was {
		if !bytes.Equal(was[i], now[i]) {
			changed++
			if !bytes.Contains(now[i], []byte(session)) {
				t.Fatalf("line %d changed but does not name the new session:\n%s", i+1, now[i])
			}
		}
	}
	return changed
}

// RenewFixtures checks Renewed on each of the package's testdata inputs
// matching pattern (goldens left out), in a subtest each, and hands check
// the source, its parse and how many lines the renewed copy changed.
func RenewFixtures(t *testing.T, c format.Codec, pattern, session string, check func(t *testing.T, src []byte, tr *transcript.Transcript, changed int)) {
	t.Helper()
	files := slices.DeleteFunc(Fixtures(t, pattern), IsGolden)
	RoundTripFiles(t, c, files, func(t *testing.T, _ string, src []byte, tr *transcript.Transcript) {
		check(t, src, tr, Renewed(t, c, tr, src, session))
	})
}
