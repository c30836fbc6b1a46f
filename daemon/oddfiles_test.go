package daemon

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/compactd/compactd/daemon/platform/platformtest"
	"github.com/compactd/compactd/daemon/watch"
)

// A named pipe called like an agent's database is not one, and looking
// at it must not block discovery (opening a pipe for reading waits for a
// writer).
func TestAgentDatabaseCheckIgnoresPipes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "opencode.db")
	if err := platformtest.Mkfifo(p); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan bool, 1)
	go func() { done <- watch.IsAgentDatabase(p) }()
	select {
	case is := <-done:
		if is {
			t.Error("a named pipe was taken for an agent database")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("checking a named pipe blocked")
	}
}
