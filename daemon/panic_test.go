package daemon

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/claude"
	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/index"
)

// panickyCodec claims files that start with {"panicky": and panics
// reading them: a codec's bug on some input.
type panickyCodec struct{ claude.Codec }

func (panickyCodec) Format() transcript.Format { return "panicky-test" }

func (panickyCodec) Detect(_ string, head []byte) int {
	if bytes.HasPrefix(head, []byte(`{"panicky":`)) {
		return 100
	}
	return 0
}

func (panickyCodec) Parse([]byte) (*transcript.Transcript, error) { panic("a codec's bug") }

func (panickyCodec) Append(*transcript.Transcript, []byte) (*transcript.Transcript, error) {
	panic("a codec's bug")
}

var registerPanicky sync.Once

type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestCodecPanicLeavesTheServerServing: a file whose codec panics is
// logged with where it happened and left without a gauge; the daemon goes
// on indexing the files beside it and their changes.
func TestCodecPanicLeavesTheServerServing(t *testing.T) {
	registerPanicky.Do(func() { format.Register(panickyCodec{}) })
	ws := t.TempDir()
	bad := filepath.Join(ws, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"panicky":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(ws, "good.jsonl")
	data := sessiongen.ClaudeCode(sessiongen.Options{Seed: 4, Turns: 6, Cwd: ws})
	if err := os.WriteFile(good, data, 0o644); err != nil {
		t.Fatal(err)
	}
	log := &lockedLog{}
	rec := &recorder{ch: make(chan struct{}, 1)}
	d, err := New(Options{Folders: []string{ws}, Env: agents.Env{Home: t.TempDir()}, OnChange: rec.add,
		Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	<-d.ScanDone()
	rec.wait(t, func(ev index.Event) bool { return ev.Path == good && ev.Snapshot != nil })
	if s := d.Snapshot(bad); s != nil {
		t.Fatalf("the file its codec panicked on has a gauge: %+v", s)
	}
	if l := log.String(); !strings.Contains(l, "a job panicked") || !strings.Contains(l, "a codec's bug") || !strings.Contains(l, "panic_test.go") {
		t.Fatalf("the log does not say what panicked where:\n%s", l)
	}
	// Again at its next change, and the daemon still follows the others.
	f, _ := os.OpenFile(bad, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"panicky":2}` + "\n")
	f.Close()
	more := sessiongen.Continue(transcript.FormatClaudeCode, data, 5, 4)
	f, _ = os.OpenFile(good, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(more)
	f.Close()
	rec.wait(t, func(ev index.Event) bool {
		return ev.Path == good && ev.Snapshot != nil && ev.Snapshot.Size == int64(len(data)+len(more))
	})
}
