package jobs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

// lossyCodec writes forks that lose the conversation, the way the Claude
// Code codec once wrote a Qwen Code session: nothing at all, or records
// that read back as no message.
type lossyCodec struct {
	lineCodec
	format transcript.Format
	fork   []byte
}

func (c lossyCodec) Format() transcript.Format { return c.format }

func (c lossyCodec) Detect(name string, head []byte) int {
	if strings.HasSuffix(name, "."+string(c.format)) {
		return 100
	}
	return 0
}

func (c lossyCodec) Parse(src []byte) (*transcript.Transcript, error) {
	t, err := c.lineCodec.Parse(src)
	if t != nil {
		t.Format = c.format
		var msgs []transcript.Message
		for _, m := range t.Messages {
			if m.Role != "meta" {
				msgs = append(msgs, m)
			}
		}
		t.Messages, t.Turns = msgs, transcript.BuildTurns(msgs)
	}
	return t, err
}

func (c lossyCodec) Fork(*transcript.View, format.ForkOptions) ([]byte, error) { return c.fork, nil }

func init() {
	format.Register(lossyCodec{format: "test-empty-fork", fork: nil})
	// A record the codec reads as metadata: a file, but no conversation.
	format.Register(lossyCodec{format: "test-meta-fork", fork: []byte(`{"session":"s","role":"meta"` + "}\n")})
}

// TestForkThatLostTheConversationFails: a fork of 0 bytes, or one that
// reads back with no message, never counts as written.
func TestForkThatLostTheConversationFails(t *testing.T) {
	root := isolate(t)
	r := newRunner(t, os.Getenv("COMPACTD_STORE"))
	for _, f := range []string{"test-empty-fork", "test-meta-fork"} {
		t.Run(f, func(t *testing.T) {
			path := filepath.Join(root, "chat."+f)
			orig := conversationBytes("s-"+f, 6, "a")
			if err := os.WriteFile(path, orig, 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := r.Compact(context.Background(), Request{Path: path})
			if err == nil {
				t.Fatalf("a fork that lost the conversation was accepted: %+v", res)
			}
			if !strings.Contains(err.Error(), "nothing was written") {
				t.Fatalf("error does not say nothing was written: %v", err)
			}
			entries, _ := os.ReadDir(root)
			for _, e := range entries {
				if strings.Contains(e.Name(), "compactd-v") {
					t.Fatalf("a fork file was left behind: %s", e.Name())
				}
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
				t.Fatal("the source changed")
			}
			h, err := r.History(context.Background(), path)
			if err == nil && len(h.Versions) > 1 {
				t.Fatalf("history lists a version that was never written: %+v", h.Versions)
			}
		})
	}
}
