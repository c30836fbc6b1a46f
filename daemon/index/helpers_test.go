package index

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/tokens"
)

func testIndexer(t *testing.T) *indexer {
	t.Helper()
	counter, err := tokens.New("o200k_base", tokens.WithCache(tokens.NewMemoryCache(0)))
	if err != nil {
		t.Fatal(err)
	}
	return &indexer{forced: counter, registry: tokens.NewRegistry(), settings: defaultSettings, log: discard{}}
}

func defaultSettings(string) *Settings { return DefaultSettings() }

type discard struct{}

func (discard) Debug(string, ...any) {}
func (discard) Error(string, ...any) {}

// startIndex starts an index with opts, records its events, and runs its
// cold scan over the files in dir, as the daemon does with what its
// watcher finds. Tests then read a changed file with Refresh, as the
// watcher's event would.
func startIndex(t *testing.T, dir string, opts Options) (*Index, *recorder) {
	t.Helper()
	rec := &recorder{ch: make(chan struct{}, 1)}
	if opts.OnChange == nil {
		opts.OnChange = rec.add
	}
	x, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	ctx := t.Context()
	wg.Go(func() { x.Run(ctx) })
	t.Cleanup(wg.Wait)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []Candidate
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			files = append(files, Candidate{Path: filepath.Join(dir, e.Name()), MTime: fi.ModTime()})
		}
	}
	x.Scan(ctx, files, nil)
	return x, rec
}

// appendTo appends data to path and has x read it.
func appendTo(t *testing.T, x *Index, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := x.Refresh(path); err != nil {
		t.Fatal(err)
	}
}

type recorder struct {
	mu     sync.Mutex
	events []Event
	ch     chan struct{}
}

func (r *recorder) add(ev Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
	select {
	case r.ch <- struct{}{}:
	default:
	}
}

// wait waits for an event that satisfies pred, at most 10 seconds.
func (r *recorder) wait(t *testing.T, pred func(Event) bool) Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for i := 0; ; {
		r.mu.Lock()
		for ; i < len(r.events); i++ {
			if pred(r.events[i]) {
				ev := r.events[i]
				r.mu.Unlock()
				return ev
			}
		}
		r.mu.Unlock()
		select {
		case <-r.ch:
		case <-deadline:
			t.Fatal("timed out waiting for an event")
		}
	}
}
