package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// A conversation lock is a file under the store's locks folder held with
// flock(2) on Unix and LockFileEx on Windows (gofrs/flock does both).
// An OS lock rather than an SQLite row: the kernel drops it when the
// holder dies (even by SIGKILL), so a crashed CLI never leaves a stale
// lock, and holding it for a long compaction does not block the store's
// other writers the way a long SQLite write transaction would.
type convLock struct{ l *flock.Flock }

// lockRetry is how often a waiting compaction tries the lock again.
const lockRetry = 25 * time.Millisecond

func lockConversation(ctx context.Context, dir, key string) (*convLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create lock folder %s: %w", dir, err)
	}
	sum := sha256.Sum256([]byte(key))
	path := filepath.Join(dir, hex.EncodeToString(sum[:12])+".lock")
	l := flock.New(path, flock.SetPermissions(0o600))
	ok, err := l.TryLockContext(ctx, lockRetry)
	if ok {
		return &convLock{l: l}, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, fmt.Errorf("waiting for another compaction of this conversation: %w", ctxErr)
	}
	return nil, fmt.Errorf("lock %s: %w", path, err)
}

func (l *convLock) unlock() {
	l.l.Unlock()
}
