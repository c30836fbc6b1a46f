package watch

import (
	"sync"

	"github.com/fsnotify/fsnotify"
)

// folderWatcher is the fsnotify watcher with its Close ordered after every
// Add and Remove under way. fsnotify's Windows backend (v1.10.1) hands an
// Add to its reader goroutine and waits for the answer; a Close between
// its check and that hand-over ends the goroutine, and the Add waits
// forever — the cold scan's Add then held daemon.Close, and with it the
// LSP shutdown request, for good (a Wine run under load). Once Close has
// begun, Add and Remove return fsnotify.ErrClosed at once.
//
// Close waits for the calls under way, which on Windows finish only while
// the reader goroutine can deliver its events: Events must be drained
// until Close returns (Daemon.Close closes the watcher before it stops
// watchLoop).
type folderWatcher struct {
	w      *fsnotify.Watcher
	Events <-chan fsnotify.Event
	Errors <-chan error

	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup
}

func newFolderWatcher() (*folderWatcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return &folderWatcher{w: w, Events: w.Events, Errors: w.Errors}, nil
}

// enter counts a call under way, or reports that Close has begun.
func (fw *folderWatcher) enter() bool {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.closed {
		return false
	}
	fw.inflight.Add(1)
	return true
}

// Add watches name (a folder, or a file on its own).
func (fw *folderWatcher) Add(name string) error {
	if !fw.enter() {
		return fsnotify.ErrClosed
	}
	defer fw.inflight.Done()
	return fw.w.Add(name)
}

// Remove stops watching name.
func (fw *folderWatcher) Remove(name string) error {
	if !fw.enter() {
		return fsnotify.ErrClosed
	}
	defer fw.inflight.Done()
	return fw.w.Remove(name)
}

// Close refuses new calls, waits for those under way, then closes the
// watcher (its Events and Errors channels close too).
func (fw *folderWatcher) Close() error {
	fw.mu.Lock()
	if fw.closed {
		fw.mu.Unlock()
		return nil
	}
	fw.closed = true
	fw.mu.Unlock()
	fw.inflight.Wait()
	return fw.w.Close()
}
