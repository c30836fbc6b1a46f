package jobs

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

// TestLockedConversationAnswersBusy: while one compaction holds its
// conversation, another of the same conversation (another server, another
// command) waits its runner's LockWait, then answers that the
// conversation is busy — it never hangs — and writes nothing; the first
// one finishes as if alone.
func TestLockedConversationAnswersBusy(t *testing.T) {
	root := isolate(t)
	ctx := context.Background()
	path := writeTranscript(t, root, conversationBytes("s-1", 10, "a"))

	holder := newRunner(t, os.Getenv("COMPACTD_STORE"))
	entered, release := make(chan struct{}), make(chan struct{})
	holder.Pipeline = func(ctx context.Context, tr *transcript.Transcript, c *tokens.Counter, opts strategy.Options) (*transcript.View, *strategy.Report, error) {
		close(entered)
		<-release
		return dropOldTurns(ctx, tr, c, opts)
	}
	held := make(chan error, 1)
	go func() {
		_, err := holder.Compact(ctx, Request{Path: path})
		held <- err
	}()
	<-entered // the holder has the lock: its pipeline runs under it

	waiter := newRunner(t, os.Getenv("COMPACTD_STORE"))
	waiter.LockWait = 200 * time.Millisecond
	start := time.Now()
	for _, req := range []Request{{Path: path}, {Path: path, InPlace: true}} {
		_, err := waiter.Compact(ctx, req)
		if !errors.Is(err, ErrConversationBusy) || !strings.Contains(err.Error(), "nothing was written") {
			t.Fatalf("in place %v: %v; want ErrConversationBusy saying nothing was written", req.InPlace, err)
		}
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("the busy answers took %v", took)
	}
	if entries, _ := os.ReadDir(root); countForks(entries) != 0 {
		t.Fatalf("a refused compaction wrote a fork: %v", entries)
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatalf("the holder: %v", err)
	}
	if entries, _ := os.ReadDir(root); countForks(entries) != 1 {
		t.Fatalf("forks after the holder finished: %v", entries)
	}
}

func countForks(entries []os.DirEntry) int {
	n := 0
	for _, e := range entries {
		if strings.Contains(e.Name(), ".compactd-") {
			n++
		}
	}
	return n
}
