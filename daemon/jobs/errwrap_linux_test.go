package jobs

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInPlaceWriteFailureSaysItOnce: an in-place compaction whose
// temporary file cannot be written (the disk full, here the process's
// file size limit: write returns EFBIG) fails with one sentence that names
// the file once and says once that the transcript is untouched — each
// layer wraps the error once — and the transcript is as it was.
func TestInPlaceWriteFailureSaysItOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.tjsonl")
	orig := conversationBytes("s-full", 4, "f")
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	content := bytes.Repeat([]byte("x"), 1<<20)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip("skip: no RLIMIT_FSIZE:", err)
	}
	lim := old
	lim.Cur = 64 << 10
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip("skip: cannot lower RLIMIT_FSIZE:", err)
	}
	ip := inPlace{wait: time.Millisecond, schedule: []time.Duration{0}}
	_, err := ip.replace(path, int64(len(orig)), sha256.Sum256(orig), content, true, nil)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if err == nil {
		t.Fatal("the write past the limit succeeded")
	}
	msg := err.Error()
	if n := strings.Count(msg, "the transcript is untouched"); n != 1 {
		t.Errorf("%q says %d times that the transcript is untouched", msg, n)
	}
	tmp := regexp.MustCompile(`[^ :]*\.compactd-[0-9]+\.tmp`).FindString(msg)
	if tmp == "" || strings.Count(msg, tmp) != 1 {
		t.Errorf("%q names the temporary file %q other than once", msg, tmp)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Error("the transcript changed")
	}
}
