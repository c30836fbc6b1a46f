// Package tokens counts tokens the way model APIs do, offline: real BPE
// (o200k_base, cl100k_base via tiktoken-go's embedded loader), a registry of
// models' encodings and context windows, image and per-message costs, and a
// content-hash cache so nothing is counted twice.
package tokens

import (
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/compactd/compactd/compaction/transcript"
)

// A Counter counts tokens with one encoding. It is safe for concurrent use.
//
// PROVISIONAL: minimal version so other packages can build against the API;
// the tokens owner replaces internals (cache, parallelism, long-run guard,
// image costs) keeping these signatures.
type Counter struct {
	encoding string
	enc      *tiktoken.Tiktoken
}

var loaderOnce sync.Once

// New returns a counter for a BPE encoding name ("o200k_base", "cl100k_base").
func New(encoding string) (*Counter, error) {
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	enc, err := tiktoken.GetEncoding(encoding)
	if err != nil {
		return nil, err
	}
	return &Counter{encoding: encoding, enc: enc}, nil
}

// Encoding names the counter's BPE encoding.
func (c *Counter) Encoding() string { return c.encoding }

// Text counts the tokens of s.
func (c *Counter) Text(s string) int { return len(c.enc.Encode(s, nil, nil)) }

// Part counts one message part as the model receives it.
func (c *Counter) Part(p *transcript.Part) int {
	n := c.Text(p.Text)
	if p.Args != "" {
		n += c.Text(p.Args)
	}
	if p.ToolName != "" && p.Kind == transcript.PartToolCall {
		n += c.Text(p.ToolName)
	}
	return n
}

// Message counts a message: its parts plus the per-message overhead.
func (c *Counter) Message(m *transcript.Message) int {
	n := MessageOverhead
	for i := range m.Parts {
		n += c.Part(&m.Parts[i])
	}
	return n
}

// MessageOverhead is the per-message framing cost (role, separators) of chat APIs.
const MessageOverhead = 4
