package all_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/claude"
	"github.com/compactd/compactd/compaction/format/codex"
	"github.com/compactd/compactd/compaction/format/copilotcli"
	"github.com/compactd/compactd/compaction/format/cursor"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/format/gemini"
	"github.com/compactd/compactd/compaction/format/internal/jsonl"
	"github.com/compactd/compactd/compaction/format/qwen"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestRunsOfUnknownLines: a real session with a run of 120,000 records of
// a type its agent never writes in its middle (more than a MiB: decoded
// on every core, past jsonl.MaxJoined) and a run of lines that do not
// decode near its end. The runs cost a few records, not one a line: the
// messages are the session's own, naming the records they were read
// from; the source comes back byte for byte, through Append in chunks
// too; forks and renewed copies are written.
func TestRunsOfUnknownLines(t *testing.T) {
	const unknown, bad = 120_000, 5_000
	root := formattest.RepoRoot()
	for _, tc := range []struct {
		codec   format.Codec
		fixture string
		// badObjects: the format's lines all name a type, so an object
		// without one is a line it cannot read (a problem), not an
		// unknown record.
		badObjects bool
	}{
		{claude.Codec{}, "compaction/format/claude/testdata/31-turns.jsonl", false},
		{codex.Codec{}, "compaction/format/codex/testdata/v0.169-world-state.jsonl", false},
		{gemini.Codec{}, "compaction/format/gemini/testdata/v0.61-tool-session.jsonl", false},
		{qwen.Codec{}, "compaction/format/qwen/testdata/session.jsonl", false},
		{cursor.Codec{}, "compaction/format/cursor/testdata/transcript.jsonl", false},
		{copilotcli.Codec{}, "compaction/format/copilotcli/testdata/events.jsonl", true},
	} {
		t.Run(string(tc.codec.Format()), func(t *testing.T) {
			head := formattest.Read(t, filepath.Join(root, tc.fixture))
			if !bytes.HasSuffix(head, []byte("\n")) {
				head = append(head, '\n')
			}
			lines := bytes.SplitAfter(head, []byte("\n"))
			mid, late := len(lines)/2, len(lines)-2
			var src bytes.Buffer
			for i, l := range lines {
				if i == mid {
					for n := range unknown {
						fmt.Fprintf(&src, `{"a":%d}`+"\n", n)
					}
				}
				if i == late {
					for n := range bad {
						fmt.Fprintf(&src, `{"a":%d,`+"\n", n)
					}
				}
				src.Write(l)
			}
			clean, err := tc.codec.Parse(head)
			if err != nil {
				t.Fatal(err)
			}
			tr := formattest.RoundTrip(t, tc.codec, tc.fixture, src.Bytes())

			runRecords := 0
			for _, r := range tr.Records {
				if bytes.HasPrefix(r.Raw, []byte(`{"a":`)) {
					runRecords++
				}
			}
			if maxRuns := unknown*12/jsonl.MaxJoined + 2 + 1; runRecords > maxRuns {
				t.Errorf("the runs took %d records; want at most %d", runRecords, maxRuns)
			}
			if got, want := len(tr.Records), len(clean.Records)+runRecords; got != want {
				t.Errorf("%d records, want the session's %d and the runs' %d", got, len(clean.Records), runRecords)
			}
			if i, ok := formattest.SameContent(tr.Messages, clean.Messages); !ok {
				t.Fatalf("messages differ from the session's own at %d", i)
			}
			// Each message names the records it was read from.
			for i, m := range tr.Messages {
				cm := clean.Messages[i]
				for k, r := range m.Records {
					if r < 0 || !bytes.Equal(tr.Records[r].Raw, clean.Records[cm.Records[k]].Raw) {
						t.Fatalf("message %d names record %d, not the line it was read from", i, r)
					}
				}
				for k, p := range m.Parts {
					if p.Ref.Record >= 0 && !bytes.Equal(tr.Records[p.Ref.Record].Raw, clean.Records[cm.Parts[k].Ref.Record].Raw) {
						t.Fatalf("message %d part %d names record %d, not the line it was read from", i, k, p.Ref.Record)
					}
				}
			}
			// One problem a run record that does not decode: the run of
			// bad lines, and those of the objects the format cannot read.
			runProblems := 0
			for _, p := range tr.Problems {
				if bytes.HasPrefix(tr.Records[p.Record].Raw, []byte(`{"a":`)) {
					runProblems++
				}
			}
			if want := 1; !tc.badObjects && runProblems != want || tc.badObjects && runProblems < 2 ||
				tr.Skipped-clean.Skipped != runProblems || len(tr.Problems)-len(clean.Problems) != runProblems {
				t.Fatalf("%d records skipped, problems %v; the session's own: %d", tr.Skipped, tr.Problems, clean.Skipped)
			}
			p := tr.Problems[len(tr.Problems)-1]
			if want := fmt.Sprintf("lines %d–%d are not records either", p.Line+1, p.Line+bad-1); !strings.HasSuffix(p.Message, want) {
				t.Errorf("problem %q does not end %q", p.Message, want)
			}
			seeds := uint64(2)
			if testing.Short() {
				seeds = 1 // make race: each costs a parse and a dozen appends under the detector
			}
			for seed := range seeds {
				formattest.AppendInChunks(t, tc.codec, src.Bytes(), seed)
			}
			if _, err := tc.codec.Fork(transcript.NewView(tr), format.ForkOptions{SessionID: "0b6a3f4e-7d1c-4e55-9a2b-3c4d5e6f7a8b"}); err != nil {
				t.Fatalf("fork: %v", err)
			}
			if rn, ok := tc.codec.(format.Renewer); ok {
				out, err := rn.Renew(tr, format.ForkOptions{SessionID: "0b6a3f4e-7d1c-4e55-9a2b-3c4d5e6f7a8b"})
				if err != nil {
					t.Fatalf("renew: %v", err)
				}
				if run := []byte(`{"a":0}` + "\n" + `{"a":1}` + "\n"); !bytes.Contains(out, run) || bytes.Count(out, []byte("\n")) != bytes.Count(src.Bytes(), []byte("\n")) {
					t.Fatalf("the renewed copy lost lines of the runs")
				}
			}
		})
	}
}

// A run never joins across blank lines, an unterminated line, or lines
// read by an earlier Append, and says which lines it covers.
func TestRunsJoinOnlyAdjacentLines(t *testing.T) {
	session := formattest.Read(t, filepath.Join(formattest.RepoRoot(), "compaction/format/claude/testdata/31-turns.jsonl"))
	var src bytes.Buffer
	src.Write(session)
	for n := range 3 {
		src.WriteString(`{"a":` + strconv.Itoa(n) + "}\n")
	}
	src.WriteString("\n")
	src.WriteString(`{"a":3}` + "\n")
	src.WriteString(`{"a":4}`) // no newline: a record, but the last
	tr, err := claude.Codec{}.Parse(src.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	n := len(tr.Records)
	want := []string{"{\"a\":0}\n{\"a\":1}\n{\"a\":2}", `{"a":3}`, `{"a":4}`}
	if n < 3 || string(tr.Records[n-3].Raw) != want[0] || string(tr.Records[n-2].Raw) != want[1] || string(tr.Records[n-1].Raw) != want[2] {
		t.Fatalf("last records %q", []string{string(tr.Records[n-3].Raw), string(tr.Records[n-2].Raw), string(tr.Records[n-1].Raw)})
	}
	out, _ := claude.Codec{}.Write(tr)
	if !bytes.Equal(out, src.Bytes()) {
		t.Fatal("Write is not the source")
	}
	// Read in two appends, the run split between them: each read joins
	// its own lines, and the lines are all there.
	cut := len(session) + len(`{"a":0}`+"\n")
	first, err := claude.Codec{}.Append(nil, src.Bytes()[:cut])
	if err != nil {
		t.Fatal(err)
	}
	next, err := claude.Codec{}.Append(first, src.Bytes()[cut:])
	if err != nil {
		t.Fatal(err)
	}
	// One record more for the split run, one fewer for the last line,
	// which waits for its newline.
	if got := len(next.Records); got != n || string(next.Records[n-3].Raw) != `{"a":0}` || string(next.Records[n-2].Raw) != "{\"a\":1}\n{\"a\":2}" {
		t.Errorf("%d records after two appends, want %d", got, n)
	}
	if out, _ := (claude.Codec{}).Write(next); !bytes.Equal(out, src.Bytes()[:next.Size]) || next.Size != int64(src.Len()-len(`{"a":4}`)) {
		t.Fatal("Write after appends is not the source")
	}
}
