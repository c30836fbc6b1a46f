package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Close while other goroutines add folders (the cold scan during an LSP
// shutdown): every call returns, nothing hangs, and what is added once
// Close has begun is refused with ErrClosed. With fsnotify's own watcher
// on Windows an Add caught by Close waited forever (see folderWatcher).
func TestFolderWatcherCloseDuringAdds(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for i := range 40 {
		d := filepath.Join(root, fmt.Sprintf("d%02d", i))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	for round := range 10 {
		fw, err := newFolderWatcher()
		if err != nil {
			t.Fatal(err)
		}
		// Drained as watchLoop does, until the watcher closes its channel.
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			for range fw.Events {
			}
		}()
		go func() {
			for range fw.Errors {
			}
		}()
		var wg sync.WaitGroup
		errs := make(chan error, 4*len(dirs))
		added := make(chan struct{}, 4)
		for g := range 4 {
			wg.Go(func() {
				for i, d := range dirs {
					// Some of them write, so the watcher has events to deliver.
					if i%3 == g%3 {
						_ = os.WriteFile(filepath.Join(d, "f"), []byte("x"), 0o600)
					}
					err := fw.Add(d)
					errs <- err
					if i == 0 {
						added <- struct{}{}
					}
				}
			})
		}
		<-added
		closed := make(chan error, 1)
		go func() { closed <- fw.Close() }()
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		// A deadline only tells a hang from an answer, far beyond load.
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("round %d: an Add never returned after Close", round)
		}
		select {
		case err := <-closed:
			if err != nil {
				t.Errorf("round %d: close: %v", round, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("round %d: Close never returned", round)
		}
		<-drained
		close(errs)
		for err := range errs {
			if err != nil && !errors.Is(err, fsnotify.ErrClosed) {
				t.Errorf("round %d: add: %v", round, err)
			}
		}
		if err := fw.Add(dirs[0]); !errors.Is(err, fsnotify.ErrClosed) {
			t.Errorf("round %d: add after close: %v, want ErrClosed", round, err)
		}
	}
}
