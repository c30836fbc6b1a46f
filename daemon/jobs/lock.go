package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A conversation lock is a file under the store's locks folder held with
// flock(2). flock rather than an SQLite row: the kernel drops it when the
// holder dies (even by SIGKILL), so a crashed CLI never leaves a stale
// lock, and holding it for a long compaction does not block the store's
// other writers the way a long SQLite write transaction would.
type convLock struct{ f *os.File }

func lockConversation(ctx context.Context, dir, key string) (*convLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create lock folder %s: %w", dir, err)
	}
	sum := sha256.Sum256([]byte(key))
	path := filepath.Join(dir, hex.EncodeToString(sum[:12])+".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &convLock{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for another compaction of this conversation: %w", ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

func (l *convLock) unlock() {
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
}
