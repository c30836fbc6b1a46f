package daemon

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/sessiongen"
	"github.com/compactd/compactd/daemon/agents"
	"github.com/compactd/compactd/daemon/index"
)

// syncBuffer is a log sink the daemon's goroutines share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestWatchBoundWithThousandsOfTranscripts: macOS watches with kqueue, one
// descriptor per watched folder and per file in it, against 256 by
// default. Here, on Linux, the daemon counts its watches as kqueue would
// (watchPerEntry) under a 256-descriptor RLIMIT_NOFILE: with 5,000
// transcripts in 100 folders (as ~/.codex/sessions/YYYY/MM/DD keeps them)
// the watches stay within their bound of 64, the folders past it are
// polled, the log and the health stats say so, and appends to the active
// transcript reach the gauge — the first found by polling, the next
// through the watch the transcript then gets on its own.
func TestWatchBoundWithThousandsOfTranscripts(t *testing.T) {
	const (
		perFolder = 50
		bound     = 64
		fileLimit = 256
	)
	folders := 100 // 5,000 transcripts
	if testing.Short() {
		folders = 20 // 1,000: the race run
	}
	ws := t.TempDir()
	small := sessiongen.ClaudeCode(sessiongen.Options{Seed: 1, Turns: 2, Cwd: ws})
	for i := range folders {
		dir := filepath.Join(ws, "sessions", fmt.Sprintf("d%03d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := range perFolder {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%02d.jsonl", j)), small, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The active transcript: a longer session, written in three parts.
	active := filepath.Join(ws, "sessions", "d012", "s07.jsonl")
	lines := strings.SplitAfter(string(sessiongen.ClaudeCode(sessiongen.Options{Seed: 2, Turns: 12, Cwd: ws})), "\n")
	third := len(lines) / 3
	if err := os.WriteFile(active, []byte(strings.Join(lines[:third], "")), 0o644); err != nil {
		t.Fatal(err)
	}

	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: fileLimit, Max: old.Max}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })

	// The process's open descriptors, sampled until the test ends.
	var mostFDs int
	var fdMu sync.Mutex
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if des, err := os.ReadDir("/proc/self/fd"); err == nil {
				fdMu.Lock()
				mostFDs = max(mostFDs, len(des))
				fdMu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()

	logs := &syncBuffer{}
	rec := &recorder{ch: make(chan struct{}, 1)}
	d, err := New(Options{Folders: []string{ws}, Env: agents.Env{Home: t.TempDir()}, OnChange: rec.add,
		Logger: slog.New(slog.NewTextHandler(logs, nil)), WatchDescriptors: bound, watchPerEntry: true, PollInterval: 250 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	start := time.Now()
	select {
	case <-d.ScanDone():
	case <-time.After(5 * time.Minute):
		t.Fatal("the scan of 5,000 transcripts did not finish")
	}
	if n := len(d.Snapshots()); n != folders*perFolder {
		t.Fatalf("%d transcripts indexed, want %d", n, folders*perFolder)
	}
	t.Logf("%d transcripts scanned in %s", folders*perFolder, time.Since(start).Round(time.Millisecond))
	st := d.WatchStats()
	if st.Descriptors > bound || st.Limit != bound || !st.LimitReached || st.PolledFolders == 0 {
		t.Fatalf("watch stats %+v; want at most %d descriptors, the limit reached, folders polled", st, bound)
	}
	if !strings.Contains(logs.String(), "watch limit reached") {
		t.Errorf("the log does not say the watch limit was reached:\n%s", logs.String())
	}

	before := d.Snapshot(active)
	if before == nil {
		t.Fatal("no gauge for the active transcript")
	}
	appendTo := func(part []string) {
		f, err := os.OpenFile(active, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(strings.Join(part, ""))
		f.Close()
	}
	// Its folder is polled: the first append is found by polling.
	appendTo(lines[third : 2*third])
	mid := rec.wait(t, func(ev index.Event) bool {
		return ev.Path == active && ev.Snapshot != nil && ev.Snapshot.Tokens > before.Tokens
	})
	if d.WatchStats().LiveFiles == 0 {
		t.Fatalf("the changed transcript is not watched on its own: %+v", d.WatchStats())
	}
	// Then it is watched: the next append arrives through the watch.
	appendTo(lines[2*third:])
	rec.wait(t, func(ev index.Event) bool {
		return ev.Path == active && ev.Snapshot != nil && ev.Snapshot.Tokens > mid.Snapshot.Tokens
	})
	if st := d.WatchStats(); st.Descriptors > bound {
		t.Errorf("after the appends: %+v; want at most %d descriptors", st, bound)
	}
	close(stop)
	<-sampled
	fdMu.Lock()
	defer fdMu.Unlock()
	if mostFDs >= fileLimit {
		t.Errorf("the process held %d descriptors; want fewer than its limit of %d", mostFDs, fileLimit)
	}
	t.Logf("watch stats %+v; at most %d descriptors open in the process", d.WatchStats(), mostFDs)
	if strings.Contains(logs.String(), "too many open files") {
		t.Errorf("the daemon ran out of descriptors:\n%s", logs.String())
	}
}
