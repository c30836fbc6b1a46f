package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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

// DefaultLockWait is how long a job waits for another job on the same
// conversation (in this process or another compactd) before it answers
// that it could not start (Runner.LockWait): a command must answer, and
// a user who asked twice or from two editors learns why the second did
// nothing.
const DefaultLockWait = 15 * time.Second

// ErrConversationBusy is what a job answers when another job held its
// conversation for all of its lock wait.
var ErrConversationBusy = errors.New("another compaction or restore of this conversation is running")

// lockConversation takes the conversation's lock, waiting for its holder
// up to the runner's lock wait.
func (r *Runner) lockConversation(ctx context.Context, key string) (*convLock, error) {
	wait := r.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	return lockConversation(ctx, r.Store.LocksDir(), key, wait)
}

func lockConversation(ctx context.Context, dir, key string, wait time.Duration) (*convLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create lock folder %s: %w", dir, err)
	}
	sum := sha256.Sum256([]byte(key))
	path := filepath.Join(dir, hex.EncodeToString(sum[:12])+".lock")
	l := flock.New(path, flock.SetPermissions(0o600))
	waitCtx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	ok, err := l.TryLockContext(waitCtx, lockRetry)
	if ok {
		return &convLock{l: l}, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, fmt.Errorf("waiting for another compaction of this conversation: %w", ctxErr)
	}
	if waitCtx.Err() != nil {
		return nil, fmt.Errorf("%w (it held the conversation for all of %s); nothing was written — try again when it finishes", ErrConversationBusy, wait)
	}
	return nil, fmt.Errorf("lock %s: %w", path, err)
}

func (l *convLock) unlock() {
	l.l.Unlock()
}
