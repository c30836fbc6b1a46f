package all_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/claude"
	"github.com/compactd/compactd/compaction/format/codex"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestDetachedAppendsShareNothing: the daemon hands a job the transcript
// it follows a file with; the job appends what the file gained while the
// index appends it too. From a Detach-ed copy the two appends (on two
// goroutines; -race watches) give what Parse gives, and the index's
// transcript is trimmed meanwhile without the job's losing anything.
func TestDetachedAppendsShareNothing(t *testing.T) {
	root := formattest.RepoRoot()
	for _, tc := range []struct {
		codec   format.Trimmer
		fixture string
	}{
		{claude.Codec{}, "compaction/format/claude/testdata/31-turns.jsonl"},
		{codex.Codec{}, "compaction/format/codex/testdata/v0.169-world-state.jsonl"},
	} {
		t.Run(string(tc.codec.Format()), func(t *testing.T) {
			src := formattest.Read(t, filepath.Join(root, tc.fixture))
			want, err := tc.codec.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			// The index has read the first half, line by line as a
			// tailer does, so its lists have room to grow into.
			half := bytes.LastIndexByte(src[:len(src)/2], '\n') + 1
			index, err := tc.codec.Append(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			for index.Size < int64(half) {
				next := bytes.IndexByte(src[index.Size:half], '\n') + 1
				if index, err = tc.codec.Append(index, src[index.Size:index.Size+int64(next)]); err != nil {
					t.Fatal(err)
				}
			}
			job := tc.codec.Detach(index)
			var jobDone, indexDone *transcript.Transcript
			var jobErr, indexErr error
			var wg sync.WaitGroup
			wg.Go(func() { jobDone, jobErr = tc.codec.Append(job, src[job.Size:]) })
			wg.Go(func() {
				tr := index
				for tr.Size < int64(len(src)) {
					next := bytes.IndexByte(src[tr.Size:], '\n') + 1
					nt, err := tc.codec.Append(tr, src[tr.Size:tr.Size+int64(next)])
					if errors.Is(err, format.ErrTrimmed) {
						nt, err = tc.codec.Append(nil, src[:tr.Size+int64(next)]) // as the daemon does
					}
					if err != nil {
						indexErr = err
						return
					}
					tc.codec.Trim(nt, len(nt.Messages)-16) // as the daemon does
					tr = nt
				}
				indexDone = tr
			})
			wg.Wait()
			if jobErr != nil || indexErr != nil {
				t.Fatalf("job: %v; index: %v", jobErr, indexErr)
			}
			if i, ok := formattest.SameContent(jobDone.Messages, want.Messages); !ok {
				t.Fatalf("the job's appends differ from Parse at message %d", i)
			}
			if len(indexDone.Messages) != len(want.Messages) {
				t.Fatalf("the index has %d messages, Parse %d", len(indexDone.Messages), len(want.Messages))
			}
			for i, m := range jobDone.Messages {
				for k, r := range m.Records {
					if !bytes.Equal(jobDone.Records[r].Raw, want.Records[want.Messages[i].Records[k]].Raw) {
						t.Fatalf("the job's message %d names record %d, not its line", i, r)
					}
				}
			}
		})
	}
}
