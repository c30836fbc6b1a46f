package jobs

import (
	"bytes"
	"context"
	"fmt"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/transcript"
)

// PinResult says what a pin or unpin did.
type PinResult struct {
	// Message is one sentence for the user (the protocol carries it
	// around the result).
	Message string `json:"-"`
	// Key is the pinned message's key (strategy.PinKey); Line the
	// transcript line it was asked on (1-based).
	Key    string `json:"key"`
	Line   int    `json:"line"`
	Pinned bool   `json:"pinned"`
	// Pins is how many messages of the conversation are pinned now.
	Pins int `json:"pins"`
}

// Pin keeps (on) or stops keeping the message at line (1-based) of path
// verbatim in every compaction of its conversation: the pin is stored
// with the conversation, and every strategy honours it.
func (r *Runner) Pin(ctx context.Context, path string, line int, on bool) (_ *PinResult, err error) {
	defer func() { err = r.Store.Explain(err) }()
	if path, err = absPath(path); err != nil {
		return nil, err
	}
	src, err := readSource(path)
	if err != nil {
		return nil, err
	}
	m, err := messageAtLine(src.data, src.t, line)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	key := conversationKey(src.t, src.path)
	if c, ok, err := r.Store.FindConversation(ctx, src.path, key); err != nil {
		return nil, err
	} else if ok {
		key = c.Key
	}
	pk := strategy.PinKey(m)
	if err := r.Store.SetPin(ctx, key, pk, on); err != nil {
		return nil, err
	}
	pins, err := r.Store.Pins(ctx, key)
	if err != nil {
		return nil, err
	}
	what := "pinned: kept verbatim in every compaction"
	if !on {
		what = "unpinned"
	}
	return &PinResult{Message: fmt.Sprintf("line %d (%s message) %s; %d pinned in this conversation", line, m.Role, what, len(pins)),
		Key: pk, Line: line, Pinned: on, Pins: len(pins)}, nil
}

// messageAtLine is the model-visible message holding line (1-based) of
// data: the record that covers the line's first byte.
func messageAtLine(data []byte, t *transcript.Transcript, line int) (*transcript.Message, error) {
	if line < 1 {
		return nil, fmt.Errorf("line %d is not a line number", line)
	}
	off, n := 0, 1
	for n < line {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return nil, fmt.Errorf("has %d lines, not %d", n, line)
		}
		off += i + 1
		n++
	}
	end := len(data)
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		end = off + i
	}
	for ri := range t.Records {
		rec := &t.Records[ri]
		if int(rec.Start) < end && int(rec.End) > off {
			if mi := t.MessageOfRecord(ri); mi >= 0 {
				return &t.Messages[mi], nil
			}
		}
	}
	return nil, fmt.Errorf("line %d holds no message the model sees (metadata, a marker, or history an agent compaction replaced)", line)
}
