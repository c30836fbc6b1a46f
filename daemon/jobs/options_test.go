package jobs

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/store"
)

// TestStoredOptionsOldRowsStillRead: a version recorded before the options
// had wire names kept strategy.Options under its Go field names
// ("Strategies", "KeepLast", "Summarizer": null); history reads it back as
// the same settings, and what it writes now and shows carries no Go field
// name.
func TestStoredOptionsOldRowsStillRead(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	path := writeTranscript(t, root, conversationBytes("s-1", 6, "a"))
	if _, err := r.Compact(ctx, Request{Path: path, Options: strategy.Options{Strategies: []string{"dedup-tools"}, KeepLast: new(2)}}); err != nil {
		t.Fatal(err)
	}
	h, err := r.History(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	conv := h.Conversation
	old := strategy.Options{Strategies: []string{"strip-reasoning", "extractive"}, KeepLast: new(3), Window: 200_000, Budget: 50_000,
		Pins: []string{"id:u1"}, Hints: map[string]strategy.ToolHint{"Bash": {Response: "strip"}}, SummarizeThreshold: 0.5, BufferTurns: new(4),
		ConfirmedTangents: []int{2}}
	if raw, _ := json.Marshal(old); !strings.Contains(string(raw), `"Strategies"`) || !strings.Contains(string(raw), `"Summarizer":null`) {
		t.Fatalf("the old writer's row is not what this test means to read: %s", raw)
	}
	if _, _, err := r.Store.RecordVersion(ctx, store.NewVersion{Conversation: conv, Kind: store.KindCompact, Format: conv.Format,
		Pipeline: old.Strategies, Options: old, Content: []byte("old\n"), SourcePath: path}); err != nil {
		t.Fatal(err)
	}
	h, err = r.History(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	last := h.Versions[len(h.Versions)-1]
	want := RecordedOptions{Strategies: old.Strategies, KeepLast: 3, Window: 200_000, Budget: 50_000, Pins: old.Pins, Hints: old.Hints,
		SummarizeThreshold: 0.5, BufferTurns: 4, ConfirmedTangents: []int{2}}
	if last.Options == nil || !reflect.DeepEqual(*last.Options, want) {
		t.Fatalf("the old row reads back as %+v, want %+v", last.Options, want)
	}
	var compacted *Version
	for i := range h.Versions {
		if h.Versions[i].Kind == store.KindCompact && h.Versions[i].Options != nil && h.Versions[i].Options.KeepLast == 2 {
			compacted = &h.Versions[i]
		}
	}
	if compacted == nil || !reflect.DeepEqual(compacted.Options.Strategies, []string{"dedup-tools"}) {
		t.Fatalf("the compaction's options read back as %+v", compacted)
	}
	shown, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, goName := range []string{`"Strategies"`, `"KeepLast"`, `"Summarizer"`, `"Counts"`} {
		if strings.Contains(string(shown), goName) {
			t.Errorf("history shows the Go field %s: %s", goName, shown)
		}
	}
	stored, err := r.Store.Versions(ctx, conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range stored {
		if v.Options != nil && v.Label == compacted.Label && strings.Contains(string(v.Options), `"Strategies"`) {
			t.Errorf("the store keeps Go field names: %s", v.Options)
		}
	}
}

// TestRecordedTurnsAreTheTurnsKept: a version records the turns its run
// kept, whatever the request left unset (the pipeline's default) — 0 is
// none — and rows of the time when the pipeline read 0 as its default
// and none as -1 read back as none.
func TestRecordedTurnsAreTheTurnsKept(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	path := writeTranscript(t, root, conversationBytes("s-1", 6, "a"))
	for _, tc := range []struct {
		keep, buffer *int
		want         [2]int
	}{{nil, nil, [2]int{strategy.DefaultKeepLast, strategy.DefaultBufferTurns}}, {new(0), new(0), [2]int{0, 0}}, {new(2), new(3), [2]int{2, 3}}} {
		res, err := r.Compact(ctx, Request{Path: path, Options: strategy.Options{Strategies: []string{"dedup-tools"}, KeepLast: tc.keep, BufferTurns: tc.buffer}})
		if err != nil {
			t.Fatal(err)
		}
		h, err := r.History(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		var got *RecordedOptions
		for _, v := range h.Versions {
			if v.Label == res.Version {
				got = v.Options
			}
		}
		if got == nil || [2]int{got.KeepLast, got.BufferTurns} != tc.want {
			t.Errorf("recorded %+v, want keepLast and bufferTurns %v", got, tc.want)
		}
	}
	h, err := r.History(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	conv := h.Conversation
	old := json.RawMessage(`{"strategies":["auto"],"keepLast":-1,"bufferTurns":-1}`)
	if _, _, err := r.Store.RecordVersion(ctx, store.NewVersion{Conversation: conv, Kind: store.KindCompact, Format: conv.Format,
		Pipeline: []string{"auto"}, Options: old, Content: []byte("old\n"), SourcePath: path}); err != nil {
		t.Fatal(err)
	}
	h, err = r.History(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if last := h.Versions[len(h.Versions)-1].Options; last == nil || last.KeepLast != 0 || last.BufferTurns != 0 {
		t.Errorf("a row that said none with -1 reads back as %+v", last)
	}
}
