package llm_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/llm"
)

// TestAdditiveThenRecursive runs four compaction cycles through a real
// HTTP provider: each new span is summarized once, earlier summaries are
// reused from the archive, and once they pass the budget they are merged.
func TestAdditiveThenRecursive(t *testing.T) {
	for _, p := range providers() {
		t.Run(p, func(t *testing.T) {
			setup(t)
			srv := newAPIServer(t, p)
			srv.reply = func(w http.ResponseWriter, _ *http.Request, req recorded) {
				if strings.Contains(req.System, "merging several summaries") {
					srv.ok(w, "MERGED: "+strings.Repeat("kept fact. ", 10))
					return
				}
				// Each span summary is about 60 tokens, so three pass a budget of 150.
				srv.ok(w, fmt.Sprintf("SPAN %d: %s", srv.count(), strings.Repeat("a fact worth keeping. ", 12)))
			}
			s, err := newSummarizer(srv.config(), nil)
			if err != nil {
				t.Fatal(err)
			}
			archive := &summarize.MemoryArchive{}
			add := &summarize.Additive{Summarizer: s, Archive: archive, Budget: 150}
			msgs := session(16)
			turns := transcript.BuildTurns(msgs)
			ctx := context.Background()

			// Cycle 1: turns 0–3.
			got, err := add.Summarize(ctx, "conv-1", msgs, turns, 4)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].FromTurn != 0 || got[0].ToTurn != 4 || srv.count() != 1 {
				t.Fatalf("cycle 1: %d summaries %+v after %d requests", len(got), got, srv.count())
			}
			first := got[0]

			// Cycle 2: only turns 4–7 go to the model; the first summary is kept as is.
			got, err = add.Summarize(ctx, "conv-1", msgs, turns, 8)
			if err != nil {
				t.Fatal(err)
			}
			req := srv.last()
			if srv.count() != 2 || !strings.Contains(req.User, "Turn 4 request") || strings.Contains(req.User, "Turn 3 request") || strings.Contains(req.User, "Turn 8 request") {
				t.Fatalf("cycle 2 sent the wrong span (%d requests):\n%.400s", srv.count(), req.User)
			}
			if len(got) != 2 || got[0].Text != first.Text || got[0].Created != first.Created || got[1].FromTurn != 4 || got[1].ToTurn != 8 {
				t.Fatalf("cycle 2 summaries = %+v", got)
			}

			// Same point again: nothing to do, no request.
			if _, err := add.Summarize(ctx, "conv-1", msgs, turns, 8); err != nil || srv.count() != 2 {
				t.Fatalf("re-running at the same point made a request (count %d, err %v)", srv.count(), err)
			}

			// Cycle 3: a third span pushes the total over the budget → one merge request.
			got, err = add.Summarize(ctx, "conv-1", msgs, turns, 12)
			if err != nil {
				t.Fatal(err)
			}
			merge := srv.last()
			if srv.count() != 4 || !strings.Contains(merge.System, summarize.MergePrompt[:60]) {
				t.Fatalf("cycle 3: %d requests, last system prompt %.100q", srv.count(), merge.System)
			}
			for i := 1; i <= 3; i++ {
				if !strings.Contains(merge.User, fmt.Sprintf("SPAN %d:", i)) {
					t.Errorf("merge prompt lacks span %d's summary", i)
				}
			}
			if len(got) != 1 || !strings.HasPrefix(got[0].Text, "MERGED") || got[0].FromTurn != 0 || got[0].ToTurn != 12 || got[0].Level != 1 {
				t.Fatalf("cycle 3 summaries = %+v", got)
			}
			if got[0].Redacted < 6 {
				t.Errorf("merged summary forgot the redactions of its parts: %d", got[0].Redacted)
			}

			// Cycle 4: additive again on top of the merged summary.
			got, err = add.Summarize(ctx, "conv-1", msgs, turns, 16)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0].Level != 1 || got[1].FromTurn != 12 || got[1].ToTurn != 16 || got[1].Level != 0 {
				t.Fatalf("cycle 4 summaries = %+v", got)
			}
			stored, _ := archive.Load(ctx, "conv-1")
			if len(stored) != 2 || stored[1].Text != got[1].Text {
				t.Fatalf("archive holds %+v", stored)
			}
		})
	}
}

// A failed model call saves nothing, so the next cycle retries only the
// missing span.
func TestAdditiveFailureKeepsArchive(t *testing.T) {
	setup(t)
	srv := newAPIServer(t, llm.ProviderAnthropic)
	s, err := newSummarizer(srv.config(), nil)
	if err != nil {
		t.Fatal(err)
	}
	archive := &summarize.MemoryArchive{}
	add := &summarize.Additive{Summarizer: s, Archive: archive, Budget: 10_000}
	msgs := session(8)
	turns := transcript.BuildTurns(msgs)
	ctx := context.Background()
	if _, err := add.Summarize(ctx, "c", msgs, turns, 4); err != nil {
		t.Fatal(err)
	}
	srv.reply = func(w http.ResponseWriter, _ *http.Request, _ recorded) {
		srv.fail(w, 529, "overloaded_error", "Overloaded")
	}
	if _, err := add.Summarize(ctx, "c", msgs, turns, 8); err == nil || !strings.Contains(err.Error(), "overloaded_error") {
		t.Fatalf("err = %v", err)
	}
	stored, _ := archive.Load(ctx, "c")
	if len(stored) != 1 || stored[0].ToTurn != 4 {
		t.Fatalf("a failure changed the archive: %+v", stored)
	}
}

func TestClassifyTangents(t *testing.T) {
	setup(t)
	for _, tc := range []struct {
		reply   string
		want    []int
		wantErr bool
	}{
		{reply: "```json\n[13, 11, 11, 15, 42, -2]\n```", want: []int{11, 13}},
		{reply: `{"tangents": [12]}`, want: []int{12}},
		{reply: "[]", want: nil},
		{reply: "Turns two and five look unrelated.", wantErr: true},
		{reply: "  ", wantErr: true},
	} {
		srv := newAPIServer(t, llm.ProviderOpenAI)
		srv.reply = func(w http.ResponseWriter, _ *http.Request, _ recorded) { srv.ok(w, tc.reply) }
		m, err := llm.New(srv.config())
		if err != nil {
			t.Fatal(err)
		}
		msgs := session(6)
		got, err := summarize.ClassifyTangents(context.Background(), m, msgs, 10, "")
		if tc.wantErr {
			if err == nil {
				t.Errorf("reply %q: no error, got %v", tc.reply, got.Turns)
			}
			continue
		}
		if err != nil {
			t.Fatalf("reply %q: %v", tc.reply, err)
		}
		// Turns are numbered from 10: 15 is the current task, never a
		// tangent, and numbers outside the span are ignored.
		if fmt.Sprint(got.Turns) != fmt.Sprint(tc.want) {
			t.Errorf("reply %q: tangents %v, want %v", tc.reply, got.Turns, tc.want)
		}
		req := srv.last()
		if !strings.Contains(req.System, "JSON array") || !strings.Contains(req.User, "### Turn 15") || strings.Contains(req.Raw, planted[0]) {
			t.Errorf("tangent prompt is off:\n%.300s", req.User)
		}
		if got.Redacted == 0 {
			t.Error("no redaction counted")
		}
	}
}
